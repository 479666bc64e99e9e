import Foundation
import ObservableStore
import StoreTestSupport
import Testing

/// Writer processes and scanning readers at once on one store file: nothing fails while the busy timeout
/// holds, nothing is lost, and a listening process sees every commit once, in order.
/// `STORE_CONTENTION_WRITERS` × `STORE_CONTENTION_COMMITS` (4 × 2,000 by default).
@Suite(.serialized) struct ContentionTests {
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
            let store = try Store(path: path)
            defer { store.close() }
            let recorder = EventRecorder()
            let token = store.listen("contention", filter: .table("nodes"), options: ListenerOptions(bufferSize: total)) {
                recorder.record($0)
            }
            defer { token.cancel() }

            // Readers: two threads scanning through the library, one thread running `storectl` processes.
            let running = LockedCounter()
            running.set(1)
            let scans = LockedCounter()
            scans.set(0)
            let readerFailures = FailureLog()
            let readers = (0..<2).map { _ in
                ThreadRunner {
                    var lastCount: Int64 = 0
                    while running.value > 0 {
                        do {
                            let (count, distinct) = try store.read { tx in
                                (
                                    try tx.fetchValue("SELECT count(*) FROM nodes").flatMap(Int64.fromDatabaseValue) ?? -1,
                                    try tx.fetchValue("SELECT count(DISTINCT name) FROM nodes").flatMap(Int64.fromDatabaseValue) ?? -2
                                )
                            }
                            if count != distinct || count < lastCount { readerFailures.add("scan saw \(count) rows, \(distinct) distinct, after \(lastCount)") }
                            lastCount = count
                            scans.increment()
                        } catch {
                            readerFailures.add("scan failed: \(error)")
                        }
                    }
                }
            }
            let shellReader = ThreadRunner {
                while running.value > 0 {
                    do {
                        let result = try run("storectl", ["--db", path, "--format", "csv", "query", "SELECT count(*) AS n FROM nodes"])
                        if result.status != 0 { readerFailures.add("storectl query exited \(result.status): \(result.stderr)") }
                        scans.increment()
                    } catch {
                        readerFailures.add("storectl query: \(error)")
                    }
                }
            }

            // Writers: separate processes, each committing one record at a time as fast as it can.
            let processes = try (0..<writers).map { _ in
                try RunningProcess("store-fixture", ["write", path, "\(commitsPerWriter)"])
            }
            let results = processes.map { $0.wait() }
            running.set(0)
            readers.forEach { $0.join() }
            shellReader.join()

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

/// Messages collected from several threads.
private final class FailureLog: @unchecked Sendable {
    // @unchecked: `messages` is guarded by `lock`.
    private let lock = NSLock()
    private var messages: [String] = []

    func add(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}

/// A thread running `body` once; `join` waits for it.
private final class ThreadRunner: @unchecked Sendable {
    // @unchecked: `done` is a semaphore; `body` runs on the thread only.
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [done] in
            body()
            done.signal()
        }
        thread.start()
    }

    func join() { done.wait() }
}
