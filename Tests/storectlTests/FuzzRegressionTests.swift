import Foundation
import StoreTestSupport
import TestScheduling
import Testing

/// The fuzz harness's seed corpus and every input that once crashed a parser (`Tools/store-fuzz/Regressions`),
/// replayed through the real `store-fuzz` binary: each must be accepted or refused cleanly, with the
/// harness's properties holding.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct FuzzRegressionTests {
    static let targets = ["json", "records", "where", "set", "key"]

    /// `Tools/store-fuzz` in the package.
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/store-fuzz")

    @Test(arguments: targets)
    func corpusAndRegressionsReplayCleanly(target: String) throws {
        let corpus = Self.fuzzFolder.appendingPathComponent("Corpus/\(target)").path
        let regressions = Self.fuzzFolder.appendingPathComponent("Regressions/\(target)").path
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus).count
            + FileManager.default.contentsOfDirectory(atPath: regressions).filter { $0 != ".gitkeep" }.count
        #expect(inputs >= 3, "a target needs seeds")

        let result = try run("store-fuzz", [target, corpus, regressions])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(target): \(inputs) inputs replayed, no finding"), "\(result.stdout)")
    }

    @Test func anUnknownTargetIsAUsageError() throws {
        let result = try run("store-fuzz", ["nonsense", "/dev/null"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("usage: store-fuzz json|records|where|set|key"))
    }
}
