#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres
import Synchronization
import TestScheduling
import Testing

/// The client layer on a real server: values both ways, errors, scripts, LISTEN, the pool.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerConnectionTests {
    @Test func valuesRoundTripThroughEveryMappedType() throws {
        try TestServer.withDatabase { url in
            let connection = try ServerConnection.connect(url)
            defer { connection.close() }
            try connection.execute("""
                CREATE TABLE v (i bigint, d double precision, t text, b bytea, n text, at timestamptz, j jsonb, f boolean,
                                m numeric, s smallint)
                """)
            let blob = Data([0, 1, 2, 255])
            try connection.execute(
                "INSERT INTO v VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7::jsonb, true, 2.5, 7)",
                [.integer(.min), .real(-1.25), .text("ünï\u{1F600}"), .blob(blob), .null, .text("2026-11-26T13:00:00.123Z"),
                 .text(#"{"a": [1, 2]}"#)])
            let result = try connection.query("SELECT * FROM v")
            #expect(result.columns == ["i", "d", "t", "b", "n", "at", "j", "f", "m", "s"])
            #expect(result.rows == [[
                .integer(.min), .real(-1.25), .text("ünï\u{1F600}"), .blob(blob), .null, .text("2026-11-26T13:00:00.123Z"),
                .text(#"{"a": [1, 2]}"#), .integer(1), .real(2.5), .integer(7),
            ]])
            #expect(try connection.execute("UPDATE v SET i = i + 1") == 1)
        }
    }

    @Test func aFailedStatementNamesTheProblemAndItsCode() throws {
        try TestServer.withDatabase { url in
            let connection = try ServerConnection.connect(url)
            defer { connection.close() }
            try connection.execute("CREATE TABLE u (id int PRIMARY KEY, w int CHECK (w >= 0))")
            try connection.execute("INSERT INTO u VALUES (1, 1)")
            let duplicate = #expect(throws: StoreError.self) { try connection.execute("INSERT INTO u VALUES (1, 2)") }
            #expect(duplicate?.code == .constraint)
            #expect(duplicate?.message.contains("23505") == true)
            let check = #expect(throws: StoreError.self) { try connection.execute("INSERT INTO u VALUES (2, -1)") }
            #expect(check?.code == .constraint)
            let missing = #expect(throws: StoreError.self) { try connection.query("SELECT * FROM nowhere") }
            #expect(missing?.code == .notFound)
            #expect(missing?.message.contains("nowhere") == true)
            let syntax = #expect(throws: StoreError.self) { try connection.query("SELEC 1") }
            #expect(syntax?.code == .invalidInput)
            // The connection is still usable after each failure.
            #expect(try connection.query("SELECT count(*) FROM u").scalar == .integer(1))
        }
    }

    @Test func aScriptRunsSeveralStatementsAsOne() throws {
        try TestServer.withDatabase { url in
            let connection = try ServerConnection.connect(url)
            defer { connection.close() }
            try connection.script("""
                CREATE TABLE a (x int);
                CREATE FUNCTION twice(v int) RETURNS int LANGUAGE sql AS $$ SELECT v * 2 $$;
                INSERT INTO a VALUES (twice(21));
                """)
            #expect(try connection.query("SELECT x FROM a").scalar == .integer(42))
            // A failing script leaves nothing behind.
            #expect(throws: StoreError.self) { try connection.script("CREATE TABLE b (y int); INSERT INTO b VALUES ('no');") }
            #expect(try connection.query("SELECT to_regclass('b') IS NULL").scalar == .integer(1))
        }
    }

    @Test func connectingFailsWithOneClearError() throws {
        let url = try #require(TestServer.url)
        let missing = #expect(throws: StoreError.self) { try ServerConnection.connect(url.with(database: "no_such_database_x")) }
        #expect(missing?.code == .notFound)
        #expect(missing?.message.contains("no_such_database_x") == true)

        var down = url
        down.port = 1  // nothing listens there
        let refused = #expect(throws: StoreError.self) { try ServerConnection.connect(down) }
        #expect(refused?.code == .unavailable)
        #expect(refused?.message.contains("127.0.0.1:1") == true || refused?.message.contains(":1/") == true)

        let admin = try ServerConnection.connect(url)
        defer { admin.close() }
        try admin.execute("""
            DO $$ BEGIN CREATE ROLE store_password_test LOGIN PASSWORD 'right';
            EXCEPTION WHEN duplicate_object THEN NULL; END $$
            """)
        var wrong = url
        wrong.user = "store_password_test"
        wrong.password = "wrong"
        let refusedLogin = #expect(throws: StoreError.self) { try ServerConnection.connect(wrong) }
        #expect(refusedLogin?.code == .unavailable)
        #expect(refusedLogin?.message.contains("password authentication failed") == true)
        #expect(refusedLogin?.message.contains("wrong") == false, "the password is never shown")
        wrong.password = "right"
        let right = try ServerConnection.connect(wrong)
        right.close()
    }

    @Test(arguments: [
        "http://host/db", "postgres://host:99999/db", "postgres://host/db?sslmode=bogus", "postgres://host/db?bogus=1",
        "postgres://host/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt",
        "postgres://host/a/b", "postgres://host:x/db",
    ])
    func badURLsAreRefusedByName(_ text: String) {
        let error = #expect(throws: StoreError.self) { try PostgresURL(text) }
        #expect(error?.code == .invalidInput)
    }

    @Test func urlDefaultsAndRedaction() throws {
        let url = try PostgresURL("postgresql://ada:s%40cret@db.example:6543/app?connect_timeout=3")
        #expect(url.user == "ada")
        #expect(url.password == "s@cret")
        #expect(url.host == "db.example")
        #expect(url.port == 6543)
        #expect(url.database == "app")
        #expect(url.connectTimeoutSeconds == 3)
        #expect(url.description == "postgres://ada:***@db.example:6543/app")
        #expect(url.tlsMode == .disable && url.rootCertificatePath == nil)
        let bare = try PostgresURL("postgres://")
        #expect(bare.description == "postgres://postgres@127.0.0.1:5432/postgres")
        let verified = try PostgresURL("postgres://db.example/app?sslmode=verify-full")
        #expect(verified.tlsMode == .verifyFull)
        #expect(verified.description == "postgres://postgres@db.example:5432/app?sslmode=verify-full")
        #expect(try PostgresURL("postgres://db.example/app?sslmode=allow").tlsMode == .disable, "allow tries without TLS first")
    }

    /// A COMMIT whose connection is lost may have committed: it says so, and is not retryable; a COMMIT the server
    /// refused (a deferred constraint, a serialization failure) rolled back, and keeps its own error.
    @Test func aLostCommitIsUnknownAndARefusedOneKeepsItsError() {
        let lost = ServerConnection.commitFailure(StoreError(.unavailable, "the connection to db was lost")) as? StoreError
        #expect(lost?.code == .commitUnknown && lost?.isRetryable == false)
        #expect(lost?.message.contains("may or may not have committed") == true, "\(String(describing: lost))")
        let refused = ServerConnection.commitFailure(StoreError(.busy, "could not serialize access (SQLSTATE 40001)")) as? StoreError
        #expect(refused?.code == .busy && refused?.isRetryable == true)
        let constraint = ServerConnection.commitFailure(StoreError(.constraint, "violates foreign key")) as? StoreError
        #expect(constraint?.code == .constraint && constraint?.isRetryable == false)
    }

    @Test func aHostListIsTriedInOrderForAWritableSessionByDefault() throws {
        let url = try PostgresURL("postgres://ada:pw@db1:5433,db2,[::1]:6543/app?connect_timeout=2")
        #expect(url.hosts.map(\.description) == ["db1:5433", "db2:5432", "[::1]:6543"])
        #expect(url.host == "db1" && url.port == 5433)
        #expect(url.user == "ada" && url.password == "pw" && url.database == "app" && url.connectTimeoutSeconds == 2)
        #expect(url.sessionTarget == .readWrite)
        #expect(url.description == "postgres://ada:***@db1:5433,db2:5432,[::1]:6543/app")
        let any = try PostgresURL("postgres://db1,db2/app?target_session_attrs=any")
        #expect(any.sessionTarget == .any)
        #expect(any.description == "postgres://postgres@db1:5432,db2:5432/app?target_session_attrs=any")
        #expect(try PostgresURL("postgres://db1/app").sessionTarget == .any, "one host: any, as libpq")
        #expect(try PostgresURL("postgres://db1/app?target_session_attrs=primary").sessionTarget == .primary)
        for bad in [
            "postgres://db1,/app", "postgres://db1,db2:0/app", "postgres://db1,db2:x/app", "postgres://db1,[::1/app",
            "postgres://db1/app?target_session_attrs=standby",
        ] {
            let error = #expect(throws: StoreError.self, "\(bad)") { try PostgresURL(bad) }
            #expect(error?.code == .invalidInput)
        }
    }

    @Test func notificationsArriveAfterCommitAndALostConnectionIsReported() throws {
        try TestServer.withDatabase { url in
            let listener = try ServerConnection.connect(url)
            defer { listener.close() }
            let received = Mutex<[String]>([])
            let closed = Atomic<Bool>(false)
            try listener.listen(on: "doorbell") { payload in received.withLock { $0.append(payload) } }
            listener.onClose { closed.store(true, ordering: .sequentiallyConsistent) }
            let writer = try ServerConnection.connect(url)
            defer { writer.close() }
            try writer.execute("BEGIN")
            try writer.execute("SELECT pg_notify('doorbell', '1')")
            Thread.sleep(forTimeInterval: 0.2)
            #expect(received.withLock { $0 }.isEmpty, "nothing before COMMIT")
            try writer.execute("COMMIT")
            try waitUntil { received.withLock { $0 } == ["1"] }
            let pid = try #require(listener.query("SELECT pg_backend_pid()").scalar)
            try writer.execute("SELECT pg_terminate_backend($1::int)", [pid])
            try waitUntil { closed.load(ordering: .sequentiallyConsistent) }
            let lost = #expect(throws: StoreError.self) { try listener.query("SELECT 1") }
            #expect(lost?.code == .unavailable)
        }
    }

    @Test func thePoolReusesConnectionsAndDropsLostOnes() throws {
        try TestServer.withDatabase { url in
            let pool = ServerConnectionPool(url: url, maximum: 2, logger: .init(label: "test"))
            defer { pool.close() }
            let first = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").scalar }
            let again = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").scalar }
            #expect(first == again)
            let admin = try ServerConnection.connect(url)
            defer { admin.close() }
            try admin.execute("SELECT pg_terminate_backend($1::int)", [try #require(first)])
            // The dead connection fails once, is dropped, and the next call gets a new one.
            Thread.sleep(forTimeInterval: 0.2)
            _ = try? pool.withConnection { try $0.query("SELECT 1") }
            let next = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").scalar }
            #expect(next != first)
            pool.close()
            let closed = #expect(throws: StoreError.self) { try pool.withConnection { try $0.query("SELECT 1") } }
            #expect(closed?.code == .transactionMisuse)
        }
    }
}

/// Polls `condition` every 10 ms for at most `seconds`; throws when it never held.
func waitUntil(seconds: Double = 10, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw StoreError(.busy, "timed out after \(seconds) s") }
        Thread.sleep(forTimeInterval: 0.01)
    }
}
#endif
