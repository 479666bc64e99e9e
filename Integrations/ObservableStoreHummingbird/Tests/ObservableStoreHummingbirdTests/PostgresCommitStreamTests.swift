#if PostgreSQL
import Foundation
import ObservableStore
import ObservableStoreHummingbird
import ObservableStorePostgres
import PostgresTestSupport
import Testing

/// The SSE route on a live server and a PostgreSQL database of the test server (a private cluster the test process
/// starts, or OBSERVABLE_STORE_POSTGRES_URL): the stream's main cases, as on SQLite.
@Suite(.timeLimit(.minutes(10)), .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCommitStreamTests {
    @Test func aLiveCommitArrivesWithItsSequenceAsIDAndTheWatchShape() async throws {
        try await StreamHarness.runOnPostgres { harness in
            try await StreamCases.aLiveCommitArrivesWithItsSequenceAsIDAndTheWatchShape(harness)
        }
    }

    @Test func aClientResumesAfterLastEventIDOrSinceWithExactlyTheMissedCommitsThenLiveOnes() async throws {
        try await StreamHarness.runOnPostgres { harness in
            try await StreamCases.aClientResumesAfterLastEventIDOrSinceWithExactlyTheMissedCommitsThenLiveOnes(harness)
        }
    }

    @Test func aCommitOfAnotherStoreOnTheSameDatabaseArrives() async throws {
        try await StreamHarness.runOnPostgres { harness in
            try await StreamCases.aCommitOfAnotherStoreArrives(harness, other: try PostgresStore(url: harness.store.url))
        }
    }
}

/// The stream over a PostgreSQL store.
extension StreamHarness where S == PostgresStore {
    /// Runs `body` against a live application serving a store on a new database of the test server, dropped
    /// afterwards; see ``run(store:options:_:)``.
    static func runOnPostgres<T: Sendable>(
        options: CommitStreamOptions = CommitStreamOptions(heartbeatInterval: .seconds(60)),
        _ body: @Sendable (StreamHarness) async throws -> T
    ) async throws -> T {
        try await withPostgresTestDatabase { database in
            try await run(store: { _ in try PostgresStore(url: database.url) }, options: options, body)
        }
    }
}
#endif
