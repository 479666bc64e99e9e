import Foundation
import StoreSQLite
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Commits of other processes reach this process's listeners (real child processes, one file).
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct ChangeFeedTests {
    private func nodeNames(_ recorder: EventRecorder) -> [String] {
        recorder.changes.compactMap { $0.new?.value("name", as: String.self) }
    }

    @Test func aChildProcessCommitsReachTheParentOnceInOrderWithPayloads() throws {
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("parent", filter: .table("nodes")) { recorder.record($0) }
            let child = try RunningProcess("store-fixture", ["write", path, "200"])
            let result = child.wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(recorder.wait(for: 200))
            try waitUntil { recorder.all.count >= 200 }
            #expect(recorder.all.count == 200)
            #expect(recorder.commits.map(\.sequence) == Array(1...200))
            let names = nodeNames(recorder)
            let pid = try #require(names.first?.split(separator: "-").first)
            #expect(names == (0..<200).map { "\(pid)-\($0)" })
            #expect(recorder.commits.allSatisfy { $0.origin == "fixture-\(pid)" })
            #expect(recorder.changes.allSatisfy { $0.operation == .insert && $0.new?.value("y", as: Double.self) != nil })
            withExtendedLifetime(token) {}
        }
    }

    @Test func twoWriterProcessesAndThisOneMergeIntoOneOrder() throws {
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("merged", filter: .table("nodes")) { recorder.record($0) }
            let first = try RunningProcess("store-fixture", ["write", path, "150"])
            let second = try RunningProcess("store-fixture", ["write", path, "150"])
            for index in 0..<50 {
                try store.repository(NodeVO.self).insert(NodeVO(name: "parent-\(index)", x: 0, y: 0))
            }
            for result in [first.wait(), second.wait()] { #expect(result.status == 0, "\(result.stderr)") }
            try waitUntil { recorder.all.count >= 350 }
            #expect(recorder.all.count == 350)
            #expect(recorder.commits.map(\.sequence) == Array(1...350))
            // Each writer's own commits keep their order inside the merged one.
            let names = nodeNames(recorder)
            for prefix in Set(names.map { String($0.split(separator: "-")[0]) }) {
                let indexes = names.filter { $0.hasPrefix(prefix + "-") }.map { Int($0.split(separator: "-")[1])! }
                #expect(indexes == Array(0..<indexes.count), "\(prefix)")
            }
            #expect(Set(names).count == 350)
            withExtendedLifetime(token) {}
        }
    }

    @Test func aWriteFromTheSQLiteShellIsAnExternalChange() throws {
        let shell = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let sqlite3 = try #require(shell, "the sqlite3 shell is needed (apt-get install sqlite3; .ci/run installs it)")
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("cache") { recorder.record($0) }
            let shell = try RunningProcess(
                executable: URL(fileURLWithPath: sqlite3), [path, "INSERT INTO nodes (name, x, y) VALUES ('from the shell', 1, 2);"]
            ).wait()
            #expect(shell.status == 0, "\(shell.stderr)")
            #expect(recorder.wait(for: 1))
            #expect(recorder.all == [.resync(.externalChange)])
            // The row is there; the log holds a marker for it, with no changes (which rows changed is unknown).
            #expect(try store.repository(NodeVO.self).count() == 1)
            let logged = try store.commits(after: 0)
            #expect(logged.map(\.sequence) == [1] && logged.allSatisfy { $0.isExternalChange && $0.changes.isEmpty })
            // Library writes afterwards are commits again, not external changes.
            try store.repository(NodeVO.self).insert(NodeVO(name: "library", x: 0, y: 0))
            #expect(recorder.wait(for: 2))
            #expect(recorder.commits.map(\.sequence) == [2])
            withExtendedLifetime(token) {}
        }
    }

    @Test func libraryBookkeepingIsNotAnExternalChange() throws {
        try withTemporaryStore { store, path in
            let other = try SQLiteStore(path: path)
            defer { other.close() }
            let recorder = EventRecorder()
            let token = store.listen("quiet") { recorder.record($0) }
            // Another process-like store: a durable cursor write and pruning, neither logged.
            let durable = try other.listenDurably("bookkeeper") { _ in }
            try other.resetDurableListener("bookkeeper", to: 0)
            _ = try other.pruneChangeLog()
            try other.repository(NodeVO.self).insert(NodeVO(name: "real", x: 0, y: 0))
            #expect(recorder.wait(for: 1))
            usleep(300_000)  // lets time pass (longer than the feed's confirmation window): nothing more may come
            #expect(recorder.all.count == 1)
            #expect(recorder.commits.map(\.sequence) == [1])
            withExtendedLifetime((token, durable)) {}
        }
    }

    /// A long write transaction spills pages to the WAL many times before it commits. Each append would wake the
    /// feed (inotify) up to once a millisecond; while this process writes, the feed polls every 20 ms instead.
    @Test func aLongWriteDoesNotWakeTheFeedForEachWALAppend() throws {
        try withTemporaryStore { store, path in
            try store.write { tx in try tx.execute("CREATE TABLE blobs (b BLOB)") }
            let feed = try #require(store.feed)
            func walSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0 }
            let walBefore = walSize()
            let checksBefore = feed.checks
            let started = ContinuousClock.now
            try store.write { tx in
                // 400 appends of 64 KiB, more than SQLite's page cache holds: spilled to the WAL as they come.
                for _ in 0..<400 {
                    try tx.execute("INSERT INTO blobs VALUES (randomblob(65536))")
                    usleep(500)  // spreads the appends over time, orders nothing
                }
            }
            let elapsed = ContinuousClock.now - started
            let checks = feed.checks - checksBefore
            #expect(walSize() > walBefore + 4_000_000, "the write did not spill to the WAL")
            // At one check per 20 ms, plus the first wake-up and the commit; one per WAL append would be hundreds.
            let allowed = Int(elapsed / .milliseconds(20)) + 10
            #expect(checks <= allowed, "\(checks) checks in \(elapsed)")
        }
    }

    @Test(arguments: [false, true])
    func prunedCommitsAnotherProcessMadeBecomeAGap(immediate: Bool) throws {
        // An immediate listener gets commits on the publishing thread: its gap must come first there too,
        // not after the commits that follow it.
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("behind", filter: .table("nodes"), options: ListenerOptions(immediate: immediate)) {
                recorder.record($0)
            }
            let feed = try #require(store.feed)
            feed.stop()  // this process stops looking while another one writes and prunes
            var configuration = SQLiteStoreConfiguration()
            configuration.retention = RetentionPolicy(minimumKeptCommits: 5, minimumKeptAge: nil, hardCapCommits: nil)
            let other = try SQLiteStore(path: path, configuration: configuration)
            for index in 0..<20 { try other.repository(NodeVO.self).insert(NodeVO(name: "o\(index)", x: 0, y: 0)) }
            #expect(try other.pruneChangeLog() == 15)
            other.close()
            store.publisher.publishFromLog(ChangeLogReader(connection: try Connection(path: path, mode: .readOnly, busyTimeoutMilliseconds: 1000)))
            try waitUntil { recorder.all.count >= 6 }
            #expect(recorder.all.first == .resync(.missedCommits(1...15)))
            #expect(recorder.commits.map(\.sequence) == Array(16...20))
            withExtendedLifetime(token) {}
        }
    }
}
