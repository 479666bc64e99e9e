import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

// `storectl query` and `list` print rows whose columns changed under them. Another process adds and drops
// a column of `t (id, a)`; storectl prints the columns of the statement SQLite ran (it re-prepares a statement whose
// schema changed inside its first step), never trapping on the difference.

@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlSchemaChangeTests {
    /// A store with table `t (id, a)` holding rows 1 and 2.
    private func makeStoreWithT(in directory: URL) throws -> String {
        let path = try initStore(in: directory)
        try withStore(path) { store in
            try store.write { tx in
                try tx.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)")
                try tx.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
            }
        }
        return path
    }

    @Test(arguments: [
        ("ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'new'", ["id,a,c", "1,x,new", "2,y,new"]),
        ("ALTER TABLE t DROP COLUMN a", ["id", "1", "2"]),
    ])
    func queryAndListPrintTheColumnsAnotherProcessLeft(_ alter: String, _ csv: [String]) throws {
        try withTemporaryDirectory { directory in
            let path = try makeStoreWithT(in: directory)
            expectSuccess(try cli(["--db", path, "--format", "ndjson", "query", "SELECT * FROM t ORDER BY id"]))
            let change = try runShellScript([try sqliteShellPath(), "-bail", path, alter].map(quotedForShell).joined(separator: " "), timeout: 60)
            try #require(change.status == 0, "sqlite3 failed: \(change.stderr)")

            for command in [["query", "SELECT * FROM t ORDER BY id"], ["list", "t"]] {
                let result = try cli(["--db", path, "--format", "csv"] + command)
                expectSuccess(result)
                #expect(result.stdout.split(separator: "\n") == csv.map { Substring($0) }, "\(command): \(result)")
            }
        }
    }

    /// Another process adds and drops a column over and over while storectl reads: a statement prepared between
    /// the two may be re-prepared inside its first step. Each run must print rows whose columns agree with its
    /// header (before the fix, about one `query` in twelve died of a trap here).
    @Test func queryAndListNeverTrapWhileAnotherProcessAltersTheTable() throws {
        try withTemporaryDirectory { directory in
            let path = try makeStoreWithT(in: directory)
            let script = directory.appendingPathComponent("churn.sql")
            try Data(
                (".timeout 5000\n" + String(repeating: "ALTER TABLE t ADD COLUMN c TEXT; ALTER TABLE t DROP COLUMN c;\n", count: 100_000))
                    .utf8
            ).write(to: script)
            let churn = try RunningProcess(executable: URL(fileURLWithPath: try sqliteShellPath()), [path], input: .file(script.path),
                discardingOutput: true)
            defer {
                churn.kill()
                _ = churn.wait(timeout: 10)  // after SIGKILL: at once
            }

            for run in 0..<90 {
                let command = run % 3 == 2 ? ["list", "t"] : ["query", "SELECT * FROM t ORDER BY id"]
                let result = try cli(["--db", path, "--format", "csv"] + command, timeout: 60)
                #expect(result.status == 0 && !result.signaled && !result.timedOut, "run \(run), \(command): \(result)")
                let lines = result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).count }
                #expect(lines.count == 3 && Set(lines).count == 1, "run \(run): the rows and the header differ: \(result)")
                if result.signaled { break }
            }
            #expect(churn.isRunning, "the ALTER loop ended before the reads did: the race was not run throughout")
        }
    }
}
