#if PostgreSQL
import ObservableStore
import ObservableStorePostgres
import PostgresTestSupport
import Testing

/// The board's REST API on a PostgreSQL database of the test server: the cases of `NodeRoutesTests`, as on SQLite.
@Suite(.timeLimit(.minutes(10)), .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNodeRoutesTests {
    @Test func createReturns201WithTheStoredNodeAndLocation() async throws {
        try await BoardFixture.withPostgres { board in try await NodeBoardCases.createReturns201WithTheStoredNodeAndLocation(board) }
    }

    @Test func patchWritesOnlyTheGivenFields() async throws {
        try await BoardFixture.withPostgres { board in try await NodeBoardCases.patchWritesOnlyTheGivenFields(board) }
    }

    @Test func deleteReturns204() async throws {
        try await BoardFixture.withPostgres { board in try await NodeBoardCases.deleteReturns204(board) }
    }
}

/// The board on a PostgreSQL store.
extension BoardFixture where S == PostgresStore {
    /// Runs `body` with the router of a store on a new database of the test server, dropped afterwards.
    static func withPostgres(token: String? = nil, _ body: @Sendable (BoardFixture) async throws -> Void) async throws {
        try await withPostgresTestDatabase { database in
            try await with(store: try PostgresStore(url: database.url), token: token, body)
        }
    }
}
#endif
