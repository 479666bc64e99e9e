#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import TestScheduling
import Testing

/// TLS to the server, against the test cluster's certificate (for 127.0.0.1, signed by an authority
/// Tools/postgres-cluster made): `sslmode=require` encrypts, `verify-full` checks the certificate against
/// `sslrootcert` or the system's trust store, and a whole store (pool, change feed) runs over it.
@Suite(
    .timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason),
    .enabled(if: TestServer.tlsAuthority != nil, "the test server does not offer TLS (Tools/postgres-cluster starts one that does)"))
struct ServerTLSTests {
    @Test(arguments: ["require", "verify-ca", "verify-full"])
    func theConnectionIsEncrypted(_ mode: String) throws {
        let authority = try #require(TestServer.tlsAuthority)
        let connection = try ServerConnection.connect(try url("sslmode=\(mode)&sslrootcert=\(authority)"))
        defer { connection.close() }
        #expect(try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").scalar == .integer(1))
    }

    @Test func requireWithoutAnAuthorityEncryptsWithoutCheckingTheCertificate() throws {
        let connection = try ServerConnection.connect(try url("sslmode=require"))
        defer { connection.close() }
        #expect(try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").scalar == .integer(1))
        let plain = try ServerConnection.connect(try url("sslmode=disable"))
        defer { plain.close() }
        #expect(try plain.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").scalar == .integer(0))
    }

    @Test func aCertificateNoTrustedAuthoritySignedIsRefused() throws {
        // The system's trust store does not hold the test authority.
        let error = #expect(throws: StoreError.self) { try ServerConnection.connect(try url("sslmode=verify-full")) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("cannot connect to") == true, "\(error?.message ?? "")")
        #expect(error?.message.lowercased().contains("certificate") == true, "\(error?.message ?? "")")
    }

    @Test func aStoreWritesAndHearsItsCommitsOverVerifiedTLS() throws {
        let authority = try #require(TestServer.tlsAuthority)
        try TestServer.withDatabase { database in
            let text = database.text + "?sslmode=verify-full&sslrootcert=\(authority)"
            let store = try PostgresStore(url: text)
            defer { store.close() }
            #expect(store.url.hasSuffix("?sslmode=verify-full"))
            let heard = Recorder<Int64>()
            let token = store.listen("all") { event in
                if case .commit(let commit) = event { heard.append(commit.sequence) }
            }
            defer { token.cancel() }
            let written = try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "over TLS", x: 0, y: 0)) }
            #expect(heard.wait(for: 1))
            #expect(heard.all == [try #require(written.sequence)])
            let encrypted = try store.read { tx in
                try tx.fetchValue(
                    "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE ssl AND datname = current_database()")
            }
            #expect(Int64.fromDatabaseValue(encrypted ?? .null) ?? 0 >= 2, "the pool's connection and the change feed's")
        }
    }

    @Test func aBadAuthorityFileOrModeIsRefusedByName() throws {
        let missing = #expect(throws: StoreError.self) { try url("sslmode=verify-full&sslrootcert=/nonexistent/ca.crt") }
        #expect(missing?.code == .invalidInput)
        #expect(missing?.message.contains("/nonexistent/ca.crt") == true)
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-ca-\(UUID().uuidString).crt")
        try Data("not a certificate".utf8).write(to: notPEM)
        defer { try? FileManager.default.removeItem(at: notPEM) }
        let unreadable = #expect(throws: StoreError.self) {
            try ServerConnection.connect(try url("sslmode=verify-full&sslrootcert=\(notPEM.path)"))
        }
        #expect(unreadable?.code == .invalidInput)
        #expect(unreadable?.message.contains("sslrootcert \(notPEM.path)") == true, "\(unreadable?.message ?? "")")
        let mode = #expect(throws: StoreError.self) { try url("sslmode=verify") }
        #expect(mode?.code == .invalidInput)
        #expect(mode?.message.contains("bad sslmode \"verify\"") == true)
    }

    /// The test server's URL with `query`.
    private func url(_ query: String) throws -> PostgresURL {
        let server = try #require(TestServer.url)
        return try PostgresURL(server.text + "?" + query)
    }
}
#endif
