import Foundation
import Logging
import NIOPosix
import PostgresNIO

/// The server the benchmark runs against: its URL's parts, a raw postgres-nio connection to any database on it,
/// and a fresh database per case (created from the URL's database, dropped afterwards).
struct BenchServer: Sendable {
    let host: String
    let port: Int
    let user: String
    let password: String?
    let adminDatabase: String

    static let logger = Logger(label: "store-bench-postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Parses `postgres://user[:password]@host[:port]/database`.
    init(url: String) throws {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host, let user = parts.user
        else { throw BenchFailure("not a postgres:// URL with a user and a host: \(url)") }
        self.host = host
        self.port = parts.port ?? 5432
        self.user = user
        self.password = parts.password
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        self.adminDatabase = path.isEmpty ? "postgres" : path
    }

    /// The URL of `database` on this server, as PostgresStore takes it.
    func url(of database: String) -> String {
        let credentials = password.map { "\(user):\($0)" } ?? user
        return "postgres://\(credentials)@\(host):\(port)/\(database)"
    }

    /// A raw postgres-nio connection (no pool, no store) to `database`.
    func connect(to database: String, id: Int = 1) async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: Self.logger)
    }

    /// Runs `body` with a new empty database, then drops it.
    func withDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let name = "bench_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try await connect(to: adminDatabase)
        try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.logger)
        do {
            let result = try await body(name)
            try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: Self.logger)
            try await admin.close()
            return result
        } catch {
            _ = try? await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: Self.logger)
            try? await admin.close()
            throw error
        }
    }
}

/// A benchmark that could not run or got a wrong result.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
