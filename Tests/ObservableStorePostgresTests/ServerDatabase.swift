#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres
import Testing

/// The test server (OBSERVABLE_STORE_POSTGRES_URL), and a fresh database on it per test.
enum TestServer {
    /// The server's URL, or nil when the variable is not set (the tests are then skipped with ``skipReason``).
    static let url: PostgresURL? = ProcessInfo.processInfo.environment["OBSERVABLE_STORE_POSTGRES_URL"].flatMap {
        try? PostgresURL($0)
    }
    /// Whether the PostgreSQL tests can run.
    static let isAvailable = url != nil
    /// Why they are skipped otherwise.
    static let skipReason: Comment = "OBSERVABLE_STORE_POSTGRES_URL is not set (see docs/POSTGRES.md, \"Running the tests\")"

    /// The certificate authority of the test server's TLS certificate (`SHOW ssl_ca_file`), or nil when the server
    /// does not offer TLS (Tools/postgres-cluster starts one that does, when openssl is installed).
    static let tlsAuthority: String? = {
        guard let url, let connection = try? ServerConnection.connect(url) else { return nil }
        defer { connection.close() }
        guard (try? connection.query("SHOW ssl").scalar) == .text("on"),
            case .text(let path)? = try? connection.query("SHOW ssl_ca_file").scalar, !path.isEmpty,
            FileManager.default.isReadableFile(atPath: path)
        else { return nil }
        return path
    }()

    /// Runs `body` with the URL of a new, empty database, dropped afterwards.
    static func withDatabase<T>(_ body: (PostgresURL) throws -> T) throws -> T {
        guard let url else { throw StoreError(.notFound, "OBSERVABLE_STORE_POSTGRES_URL is not set") }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try ServerConnection.connect(url)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
        return try body(url.with(database: name))
    }
}
#endif
