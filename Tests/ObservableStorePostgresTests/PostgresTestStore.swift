#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres

extension TestServer {
    /// Runs `body` with a store opened on a new database (dropped afterwards), and the database's URL.
    static func withStore<T>(
        _ configuration: PostgresStoreConfiguration = PostgresStoreConfiguration(),
        _ body: (PostgresStore, PostgresURL) throws -> T
    ) throws -> T {
        try withDatabase { url in
            let store = try PostgresStore(url: url.text, configuration: configuration)
            defer { store.close() }
            return try body(store, url)
        }
    }
}

extension PostgresURL {
    /// The URL as `PostgresStore(url:)` takes it, with the password.
    var text: String {
        let credentials = password.map { "\(user):\($0)" } ?? user
        return "postgres://\(credentials)@\(host):\(port)/\(database)"
    }
}

/// A connection of its own to `url`, for looking at the database behind the store's back.
@discardableResult
func withAdmin<T>(_ url: PostgresURL, _ body: (ServerConnection) throws -> T) throws -> T {
    let connection = try ServerConnection.connect(url)
    defer { connection.close() }
    return try body(connection)
}

/// The first column of the first row of `sql`, as an integer (0 when NULL), the caller suspended meanwhile.
func awaitedInteger(_ connection: ServerConnection, _ sql: String) async throws -> Int64 {
    Int64.fromDatabaseValue(try await connection.query(sql).scalar ?? .null) ?? 0
}

/// The first column of the first row of `sql`, as an integer (0 when NULL).
func integer(_ connection: ServerConnection, _ sql: String) throws -> Int64 {
    Int64.fromDatabaseValue(try connection.query(sql).scalar ?? .null) ?? 0
}
#endif
