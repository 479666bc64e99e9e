import Foundation
import StoreTestSupport
import TestScheduling
import Testing

/// StoreTestSupport's PostgreSQL helpers on the test server: each test database is new, reachable, and gone
/// afterwards; a failing `psql` names the statement and the server's error.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresTestDatabaseTests {
    @Test func aTestDatabaseIsNewReachableByItsURLAndDroppedAfterwards() throws {
        let database = try PostgresTestDatabase()
        #expect(database.name.count == 34 && database.name.hasPrefix("t_"))
        #expect(try database.exists())
        #expect(try database.psql("SELECT current_database()") == database.name + "\n")
        #expect(try database.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0\n")
        try database.drop()
        #expect(try !database.exists())
        try database.drop()  // again: nothing to do
    }

    @Test func withPostgresTestDatabaseDropsItEvenWhenTheBodyThrows() throws {
        struct Failure: Error {}
        let made = Locked<PostgresTestDatabase?>(nil)
        #expect(throws: Failure.self) {
            try withPostgresTestDatabase { database in
                made.value = database
                try database.psql("CREATE TABLE t (id int)")
                throw Failure()
            }
        }
        let database = try #require(made.value)
        #expect(try !database.exists())
    }

    @Test func dropEndsTheSessionsStillConnected() throws {
        try withPostgresTestDatabase { database in
            // A session that stays connected (sleeping) while the database is dropped.
            let psql = try RunningProcess(
                executable: URL(fileURLWithPath: PostgresTestServer.psqlPath()),
                ["-X", "-q", "-v", "ON_ERROR_STOP=1", database.url, "-c", "SELECT pg_sleep(60)"], discardingOutput: true)
            try waitUntil("the sleeping session to connect") {
                try database.psql(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
                    == "1\n"
            }
            try database.drop()
            #expect(try !database.exists())
            let ended = psql.wait(timeout: 20)
            #expect(!ended.timedOut && ended.status != 0)
        }
    }

    @Test func twoTestDatabasesAreDistinct() throws {
        try withPostgresTestDatabase { first in
            try withPostgresTestDatabase { second in
                #expect(first.name != second.name)
                try first.psql("CREATE TABLE only_here (id int)")
                #expect(try second.psql("SELECT to_regclass('only_here') IS NULL") == "t\n")
            }
        }
    }

    @Test func aFailingStatementNamesItAndTheServersErrorAndChangesNothing() throws {
        try withPostgresTestDatabase { database in
            try database.psql("CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (1)")
            let failure = #expect(throws: PostgresTestServer.PSQLFailure.self) {
                try database.psql("BEGIN; INSERT INTO kept VALUES (2); INSERT INTO missing_table VALUES (1); COMMIT")
            }
            #expect(failure?.description.contains("INSERT INTO missing_table") == true)
            #expect(failure?.description.contains("relation \"missing_table\" does not exist") == true)
            #expect(try database.psql("SELECT count(*) FROM kept") == "1\n")
        }
    }
}

/// The URL arithmetic needs no server.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct PostgresTestServerURLTests {
    @Test func aDatabaseURLKeepsUserHostPortAndOptions() throws {
        #expect(
            try PostgresTestServer.url("postgres://postgres@127.0.0.1:54329/postgres?sslmode=disable", database: "t_1")
                == "postgres://postgres@127.0.0.1:54329/t_1?sslmode=disable")
        #expect(try PostgresTestServer.url("postgresql://u:p@h/db", database: "x") == "postgresql://u:p@h/x")
    }

    @Test func aURLThatIsNotPostgresIsRefusedNamingTheVariable() {
        let error = #expect(throws: CocoaError.self) { try PostgresTestServer.url("/tmp/store.sqlite", database: "t_1") }
        #expect("\(error?.userInfo[NSFilePathErrorKey] ?? "")" == "OBSERVABLE_STORE_POSTGRES_URL is not a postgres:// URL")
    }
}
