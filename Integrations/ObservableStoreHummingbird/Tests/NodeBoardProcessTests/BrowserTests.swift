import Foundation
import Testing

/// The board in a real browser: runs Tests/browser/test_board.py (headless Chromium driven by Playwright for
/// Python), which starts node-board itself. Never skipped: a machine without Chromium or Playwright fails with
/// the commands that install them. The screenshot goes to `.build/test-output/browser/board.png`.
@Suite(.timeLimit(.minutes(10)))
struct BrowserTests {
    static let installCommands = "apt-get install -y chromium python3 && pip install playwright (never `playwright install`)"

    @Test func twoPagesStayInStepWithTheStoreAndAcrossARestart() throws {
        // $PYTHON, else the first python3 on PATH (the one pip installed Playwright for).
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["PYTHON"]].compactMap { $0 }
            + (environment["PATH"] ?? "/usr/bin").split(separator: ":").map { "\($0)/python3" }
        let python = try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0) },
            "python3 is missing: \(Self.installCommands)")
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium is missing: \(Self.installCommands)")
        let probe = try ChildProcess.run(python, ["-c", "import playwright"], timeout: 30)
        try #require(probe.status == 0, "Playwright for Python is missing (\(probe.stderr)): \(Self.installCommands)")

        let output = BuiltProducts.packageDirectory.appendingPathComponent(".build/test-output/browser")
        let script = BuiltProducts.packageDirectory.appendingPathComponent("Tests/browser/test_board.py").path
        let result = try ChildProcess.run(
            python,
            [script, "--node-board", try BuiltProducts.nodeBoard(), "--storectl", try BuiltProducts.storectl(), "--out", output.path],
            timeout: 240)
        #expect(result.status == 0, "test_board.py exit \(result.status)\n\(result.stdout)\n\(result.stderr)")
    }
}
