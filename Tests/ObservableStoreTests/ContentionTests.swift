import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// Writer processes and scanning readers at once on one store file: nothing fails while the busy timeout
/// holds, nothing is lost, and a listening process sees every commit once, in order.
/// `STORE_CONTENTION_WRITERS` × `STORE_CONTENTION_COMMITS` (4 × 2,000 by default).
@Suite(.serialized, .timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct ContentionTests {
    static var writers: Int { ProcessInfo.processInfo.environment["STORE_CONTENTION_WRITERS"].flatMap(Int.init) ?? 4 }
    static var commitsPerWriter: Int {
        ProcessInfo.processInfo.environment["STORE_CONTENTION_COMMITS"].flatMap(Int.init) ?? 2_000
    }

    @Test func writerProcessesAndScanningReadersLoseNothingAndTheFeedIsCompleteAndOrdered() throws {
        let writers = Self.writers
        let commitsPerWriter = Self.commitsPerWriter
        let total = writers * commitsPerWriter
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("contention.sqlite").path
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            let recorder = EventRecorder()
            let token = store.listen("contention", filter: .table("nodes"), options: ListenerOptions(bufferSize: total)) {
                recorder.record($0)
            }
            defer { token.cancel() }

            // Readers: two threads scanning through the library, one thread running `storectl` processes.
            let running = Locked(1)
            let scans = Locked(0)
            let readerFailures = Recorder<String>()
            let readers = (0..<2).map { _ in
                ThreadJob {
                    var lastCount: Int64 = 0
                    while running.value > 0 {
                        do {
                            let (count, distinct) = try store.read { tx in
                                (
                                    try tx.fetchValue("SELECT count(*) FROM nodes").flatMap(Int64.fromDatabaseValue) ?? -1,
                                    try tx.fetchValue("SELECT count(DISTINCT name) FROM nodes").flatMap(Int64.fromDatabaseValue) ?? -2
                                )
                            }
                            if count != distinct || count < lastCount { readerFailures.append("scan saw \(count) rows, \(distinct) distinct, after \(lastCount)") }
                            lastCount = count
                            scans.withLock { $0 += 1 }
                        } catch {
                            readerFailures.append("scan failed: \(error)")
                        }
                    }
                }
            }
            let shellReader = ThreadJob {
                while running.value > 0 {
                    do {
                        let result = try run("storectl", ["--db", path, "--format", "csv", "query", "SELECT count(*) AS n FROM nodes"])
                        if result.status != 0 { readerFailures.append("storectl query exited \(result.status): \(result.stderr)") }
                        scans.withLock { $0 += 1 }
                    } catch {
                        readerFailures.append("storectl query: \(error)")
                    }
                }
            }

            // Writers: separate processes, each committing one record at a time as fast as it can.
            let processes = try (0..<writers).map { _ in
                try RunningProcess("store-fixture", ["write", path, "\(commitsPerWriter)"])
            }
            let results = processes.map { $0.wait(timeout: 480) }  // 4 × 2,000 commits on a busy machine
            running.value = 0
            for reader in readers + [shellReader] { try reader.result("a reader thread to stop", timeout: 60) }

            for result in results {
                #expect(result.status == 0, "a writer failed (no error may escape while the busy timeout holds): \(result.stderr)")
            }
            #expect(readerFailures.all.isEmpty, "\(readerFailures.all.prefix(5))")
            #expect(scans.value > 10, "the readers should have scanned while the writers wrote")

            // Exact final counts: every writer's every record, once.
            try store.read { tx in
                #expect(try tx.fetchValue("SELECT count(*) FROM nodes") == .integer(Int64(total)))
                #expect(try tx.fetchValue("SELECT count(DISTINCT name) FROM nodes") == .integer(Int64(total)))
                let perWriter = try tx.fetchRows(
                    "SELECT substr(name, 1, instr(name, '-') - 1) AS pid, count(*) AS n, min(y) AS first, max(y) AS last "
                        + "FROM nodes GROUP BY pid")
                #expect(perWriter.count == writers)
                for row in perWriter {
                    #expect(row.value("n", as: Int.self) == commitsPerWriter)
                    #expect(row.value("first", as: Int.self) == 0 && row.value("last", as: Int.self) == commitsPerWriter - 1)
                }
                #expect(try tx.fetchValue("PRAGMA integrity_check") == .text("ok"))
            }

            // The feed: every commit once, in sequence order, and each writer's commits in its own order.
            #expect(recorder.wait(for: total, timeout: 120), "the listener got \(recorder.all.count) of \(total) events")
            let commits = recorder.commits
            #expect(commits.count == recorder.all.count, "only commits, no gap or external change")
            #expect(commits.map(\.sequence) == Array(1...Int64(total)), "sequences out of order, missing or repeated")
            var nextIndex: [String: Double] = [:]
            for commit in commits {
                guard let origin = commit.origin, let change = commit.changes.first, commit.changes.count == 1 else {
                    Issue.record("commit \(commit.sequence) should be one insert from one writer")
                    continue
                }
                let index = change.new?.value("y", as: Double.self) ?? -1
                #expect(index == nextIndex[origin, default: 0], "writer \(origin)'s commits out of order")
                nextIndex[origin] = index + 1
            }
            print("contention: \(writers) writer processes × \(commitsPerWriter) commits, \(scans.value) concurrent scans, \(commits.count) events in order")
        }
    }
}
