import StoreTestSupport
import TestScheduling
import Testing

/// The conformance cases on the SQLite engine: each on a fresh store file (WAL) in a temporary directory.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct SQLiteConformanceTests {
    @Test(arguments: ConformanceCase.allCases) func conformance(_ testCase: ConformanceCase) async throws {
        try await withTemporaryDirectory { directory in
            try await testCase.run(on: SQLiteEngine(directory: directory))
        }
    }

    /// The SQLite engine declares no difference: it is the reference.
    @Test func theReferenceEngineDeclaresNoDifference() {
        #expect(EngineDifference.of(.sqlite).isEmpty)
    }
}
