#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres
import StoreTestSupport
import Testing

/// The test server (``PostgresTestServer``: the URL in OBSERVABLE_STORE_POSTGRES_URL, or a private cluster this test
/// process started), and a fresh database on it per test.
enum TestServer {
    /// The server's URL, or nil when there is none (the tests are then skipped with ``skipReason``, or fail with
    /// ``unavailable`` when PostgreSQL is installed but its cluster did not start).
    static let url: PostgresURL? = PostgresTestServer.url.flatMap { try? PostgresURL($0) }
    /// Whether the PostgreSQL tests run.
    static let isAvailable = PostgresTestServer.isAvailable
    /// Why they are skipped otherwise.
    static let skipReason = PostgresTestServer.skipReason
    /// The error a test throws when it needs the server and there is none.
    static var unavailable: StoreError { StoreError(.notFound, PostgresTestServer.unavailableReason) }

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
        guard let url else { throw unavailable }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try ServerConnection.connect(url)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
        return try body(url.with(database: name))
    }
}
#endif
