#if PostgreSQL
import PostgresTestSupport
import SSEWire
import Testing

/// node-board started for real on a PostgreSQL database of the test server (`--db postgres://…`), an SSE client over a
/// socket, storectl writing from another process on the same database.
@Suite(.timeLimit(.minutes(10)), .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBoardProcessTests {
    @Test func storectlInsertOnTheSameDatabaseArrivesWithItsSequence() throws {
        try withPostgresTestDatabase { database in
            let server = try NodeBoardServer(storePath: database.url)
            let events = try server.events(path: "/events?since=0")
            try EventStreamProcessTests.expectStorectlInsertArrives(on: server, events: events)
            #expect(server.stop()?.status == 0)
        }
    }
}
#endif
