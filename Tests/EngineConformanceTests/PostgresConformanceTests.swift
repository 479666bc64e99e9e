#if PostgreSQL
import StoreTestSupport
import TestScheduling
import Testing

/// The conformance cases on the PostgreSQL engine: each on its own database of the test server
/// (``PostgresTestServer``), dropped afterwards. Without a server the suite is skipped with the reason.
@Suite(
    .timeLimit(.minutes(10)), .threadPerTest, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConformanceTests {
    @Test(arguments: ConformanceCase.allCases) func conformance(_ testCase: ConformanceCase) async throws {
        try await withPostgresTestDatabase { database in
            try await testCase.run(on: PostgresEngine(database: database))
        }
    }
}
#endif
