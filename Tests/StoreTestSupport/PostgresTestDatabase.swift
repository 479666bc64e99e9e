import Foundation

/// A fresh database `t_<uuid without dashes>` on the test server (``PostgresTestServer``), for one test: tests
/// that each use their own can run in parallel. ``drop()`` removes it (`DROP DATABASE … WITH (FORCE)`, which
/// ends the sessions still connected); ``withPostgresTestDatabase(_:)`` always does.
///
/// It is made and dropped with `psql` as a child process, so StoreTestSupport does not depend on postgres-nio.
///
/// For example:
///
/// ```swift
/// try withPostgresTestDatabase { database in
///     let store = try PostgresStore(url: database.url)
///     defer { store.close() }
/// }
/// ```
public final class PostgresTestDatabase: Sendable {
    /// The database's name: `t_` and a UUID's 32 hexadecimal digits, lowercase.
    public let name: String
    /// The database's URL: the server's, with this database.
    public let url: String
    /// The server's URL (a database that always exists), from which this one was made and is dropped.
    public let serverURL: String

    /// Creates a new, empty database on the test server; throws when ``PostgresTestServer/isAvailable`` is false
    /// or `psql` fails.
    public init() throws {
        guard let serverURL = PostgresTestServer.url else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: PostgresTestServer.unavailableReason])
        }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        self.name = name
        self.serverURL = serverURL
        url = try PostgresTestServer.url(serverURL, database: name)
        try PostgresTestServer.psql("CREATE DATABASE \(name)", on: serverURL)
    }

    /// Drops the database, ending the sessions still connected to it. Dropping it again does nothing.
    public func drop() throws {
        try PostgresTestServer.psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: serverURL)
    }

    /// Runs `sql` with `psql` on this database (as another program would write) and returns what it printed:
    /// rows one a line, columns separated by `|`.
    @discardableResult
    public func psql(_ sql: String, timeout: Double = 60) throws -> String {
        try PostgresTestServer.psql(sql, on: url, timeout: timeout)
    }

    /// Whether the database exists on the server.
    public func exists() throws -> Bool {
        try PostgresTestServer.psql("SELECT count(*) FROM pg_database WHERE datname = '\(name)'", on: serverURL)
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }
}

/// Runs `body` with a fresh ``PostgresTestDatabase``, dropped when `body` returns or throws.
public func withPostgresTestDatabase<T>(_ body: (PostgresTestDatabase) throws -> T) throws -> T {
    let database = try PostgresTestDatabase()
    defer { try? database.drop() }
    return try body(database)
}

/// Async twin of ``withPostgresTestDatabase(_:)``; `body` runs on the caller's actor (`isolation`).
public func withPostgresTestDatabase<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: (PostgresTestDatabase) async throws -> T
) async throws -> T {
    let database = try PostgresTestDatabase()
    defer { try? database.drop() }
    return try await body(database)
}
