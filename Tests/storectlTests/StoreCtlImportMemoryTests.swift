import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// Peak memory of `storectl insert` does not depend on the number of records: the same import at
/// 50,000 and 500,000 records (ten times as many; 1,000,000 would take over a minute in the debug build the tests
/// use) peaks within 1.2 times plus 4 MB of each other. A memory check, not a timing.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlImportMemoryTests {
    static let small = 50_000
    static let big = 500_000

    @Test func batchedImportPeakMemoryDoesNotGrowWithTheInput() throws {
        try withTemporaryDirectory { directory in
            let (small, big) = try Self.peaks(["--batch-size", "10000"], in: directory)
            #expect(big.peakKilobytes <= small.peakKilobytes * 6 / 5 + 4_096, "\(Self.small): \(small); \(Self.big): \(big)")
        }
    }

    /// All or nothing: one transaction of 500,000 rows. The change capture seals its pieces into a spill file
    /// (docs/OBSERVATION.md, "Large transactions"), so this does not grow with the input either.
    @Test func allOrNothingImportPeakMemoryDoesNotGrowWithTheInput() throws {
        try withTemporaryDirectory { directory in
            let (small, big) = try Self.peaks([], in: directory)
            #expect(big.peakKilobytes <= small.peakKilobytes * 6 / 5 + 4_096, "\(Self.small): \(small); \(Self.big): \(big)")
        }
    }

    /// The peak RSS of importing `small` and `big` generated nodes (NDJSON files) into fresh stores, with `options`.
    private static func peaks(_ options: [String], in directory: URL) throws -> (small: PeakMemoryRun, big: PeakMemoryRun) {
        let runs = try [small, big].map { count in
            let path = try initStore(in: directory, "store-\(count).sqlite")
            let file = directory.appendingPathComponent("nodes-\(count).ndjson")
            try writeLines((0..<count).lazy.map { ##"{"name":"node \##($0)","x":\##(Double($0) / 3),"y":\##($0),"color":"#A0B0C0"}"## }, to: file)
            let run = try peakMemory(of: try storectlURL(), ["--db", path, "insert", "nodes", file.path] + options, timeout: 150)
            #expect(run.status == 0, "\(run)")
            #expect(run.peakKilobytes > 10_000, "a measured peak (a Swift process takes more than 10 MB): \(run)")
            #expect(run.stderr.contains("inserted \(count) records"), "\(run)")
            #expect(try rowCount(path) == Int64(count))
            return run
        }
        return (runs[0], runs[1])
    }
}
