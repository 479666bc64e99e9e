import Dispatch
import Foundation
@testable import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct TransactionTests {
    struct Planned: Error {}

    @Test func aThrowingWriteRollsEverythingBack() throws {
        try withTemporaryStore { store, _ in
            #expect(throws: Planned.self) {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "a", x: 0, y: 0))
                    try tx.insert(UserInfo(id: "me", name: "Ada"))
                    throw Planned()
                }
            }
            #expect(try store.repository(NodeVO.self).count() == 0)
            #expect(try store.repository(UserInfo.self).count() == 0)
            // The writer is usable again afterwards.
            try store.repository(NodeVO.self).insert(NodeVO(name: "b", x: 0, y: 0))
            #expect(try store.repository(NodeVO.self).count() == 1)
        }
    }

    @Test func theWALIsCheckpointedAfterWritesNotLeftToGrow() throws {
        // The writer checkpoints after a write, not inside COMMIT. Over 1,500 one-row commits (about
        // three pages each) the WAL must still be reset near SQLite's 1,000-page mark, with a reader
        // open throughout, and nothing lost.
        try withTemporaryStore { store, path in
            let nodes = store.repository(NodeVO.self)
            var largestWAL: UInt64 = 0
            for index in 0..<1_500 {
                try nodes.insert(NodeVO(name: "n\(index)", x: Double(index), y: 0))
                if index % 50 == 0 { #expect(try nodes.count() == index + 1) }
                let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? UInt64 ?? 0
                largestWAL = max(largestWAL, size)
            }
            let frame = UInt64(4096 + 24)
            #expect(largestWAL > 900 * frame)  // it did grow to the threshold…
            #expect(largestWAL < 1_100 * frame)  // …and was reset there, not left to grow to ~4,500 frames
            #expect(try nodes.count() == 1_500)
            #expect(try store.read { try $0.fetchValue("PRAGMA integrity_check") } == .text("ok"))
        }
    }

    @Test func lastSequenceIsTheSnapshotsAndStaysPutWhileAnotherConnectionCommits() throws {
        try withTemporaryStore { store, path in
            #expect(try store.read { try $0.lastSequence() } == 0)
            let nodes = store.repository(NodeVO.self)
            for index in 0..<3 { try nodes.insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
            #expect(try store.read { try $0.lastSequence() } == 3)
            #expect(try store.read { try $0.lastSequence() } == store.lastSequence())
            let other = try SQLiteStore(path: path)
            defer { other.close() }
            let (before, count, after) = try store.read { tx in
                let before = try tx.lastSequence()
                try other.repository(NodeVO.self).insert(NodeVO(name: "other", x: 0, y: 0))
                let count = try tx.fetchValue("SELECT count(*) FROM nodes")
                return (before, count, try tx.lastSequence())
            }
            #expect(before == 3)
            #expect(after == 3)  // the same snapshot as the rows…
            #expect(count == .integer(3))  // …which do not have the other connection's node either
            #expect(try store.read { try $0.lastSequence() } == 4)
            // In a write, it is the sequence before the write's own commit.
            let inWrite = try store.write { tx in
                try tx.insert(NodeVO(name: "mine", x: 0, y: 0))
                return try tx.lastSequence()
            }
            #expect(inWrite == 4)
            #expect(try store.lastSequence() == 5)
        }
    }

    @Test func nestedSavepointsRollBackOnlyTheirOwnWork() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in
                try tx.insert(NodeVO(name: "outer", x: 0, y: 0))
                try tx.savepoint { tx in
                    try tx.insert(NodeVO(name: "kept", x: 0, y: 0))
                    #expect(throws: Planned.self) {
                        try tx.savepoint { tx in
                            try tx.insert(NodeVO(name: "dropped", x: 0, y: 0))
                            try tx.savepoint { tx in try tx.insert(NodeVO(name: "dropped too", x: 0, y: 0)) }
                            throw Planned()
                        }
                    }
                    try tx.insert(NodeVO(name: "after", x: 0, y: 0))
                }
            }
            let names = try store.repository(NodeVO.self).fetchAll(RecordQuery().order(by: "id")).map(\.name)
            #expect(names == ["outer", "kept", "after"])
        }
    }

    @Test func aSavepointErrorThatEscapesRollsBackTheTransaction() throws {
        try withTemporaryStore { store, _ throws in
            #expect(throws: Planned.self) {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "outer", x: 0, y: 0))
                    try tx.savepoint { _ in throw Planned() }
                }
            }
            #expect(try store.repository(NodeVO.self).count() == 0)
        }
    }

    @Test func aWriteInsideAWriteIsRefusedNotDeadlocked() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in
                try tx.insert(NodeVO(name: "outer", x: 0, y: 0))
                let error = #expect(throws: StoreError.self) {
                    try store.repository(NodeVO.self).insert(NodeVO(name: "inner", x: 0, y: 0))
                }
                #expect(error?.code == .transactionMisuse)
            }
            #expect(try store.repository(NodeVO.self).fetchAll().map(\.name) == ["outer"])
        }
    }

    @Test func aWriteInsideAnAsyncWriteIsRefusedNotDeadlocked() async throws {
        try await withTemporaryStore { store, _ in
            let code = try await store.write { tx -> StoreError.Code? in
                try tx.insert(NodeVO(name: "outer", x: 0, y: 0))
                do {
                    try store.write { _ in }
                    return nil
                } catch let error as StoreError {
                    return error.code
                }
            }
            #expect(code == .transactionMisuse)
            #expect(try store.repository(NodeVO.self).fetchAll().map(\.name) == ["outer"])
        }
    }

    /// A synchronous write takes the writer at once when it is free, but not ahead of a write already
    /// waiting: a thread that writes again as soon as its write ends cannot keep the writer from others.
    @Test func aWaitingWriteGoesBeforeTheNextWriteOfTheThreadThatHadTheWriter() throws {
        try withTemporaryStore(configuration: .withoutChangeFeed) { store, _ in
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            Thread {
                try? store.write { _ in
                    inside.signal()
                    release.wait(seconds: helperWaitSeconds)
                }
                _ = try? store.write { tx in try tx.insert(NodeVO(name: "again", x: 0, y: 0)) }
                finished.signal()
            }.start()
            try inside.waitForSignal("the first write to start")
            Thread {
                _ = try? store.write { tx in try tx.insert(NodeVO(name: "waiting", x: 0, y: 0)) }
                finished.signal()
            }.start()
            try waitUntil { store.writer.waitingWrites == 1 }
            release.signal()
            try finished.waitForSignal("the first thread's writes")
            try finished.waitForSignal("the second thread's write")
            #expect(try store.repository(NodeVO.self).fetchAll().map(\.name) == ["waiting", "again"])
            #expect(store.writer.waitingWrites == 0)
        }
    }

    /// An async write's closure holds the store; when the caller lets the store go while the writer's queue
    /// is still finishing that write (its checkpoint), the closure's release is the last one, and the store
    /// closes itself on that queue: it must not wait for the queue it runs on.
    @Test func aStoreReleasedByItsLastAsyncWriteClosesOnTheWritersQueue() async throws {
        try await withTemporaryDirectory { directory in
            for round in 0..<5 {
                let path = directory.appendingPathComponent("store-\(round).sqlite").path
                let walPath = path + "-wal"
                var store: SQLiteStore? = try SQLiteStore(path: path)
                // Over 1,000 WAL pages: the writer checkpoints after the caller has resumed.
                let payload = String(repeating: "x", count: 6_000_000)
                try await store?.write { tx in try tx.insert(NodeVO(name: payload, x: 0, y: 0)) }
                #expect(FileManager.default.fileExists(atPath: walPath))
                store = nil
                // Closing checkpoints and deletes the WAL; a store that waits for the queue it runs on never does.
                try await waitUntil("store \(round), released on the writer's queue, to close") {
                    !FileManager.default.fileExists(atPath: walPath)
                }
            }
        }
    }

    @Test func aTransactionCannotBeUsedAfterItsClosure() throws {
        try withTemporaryStore { store, _ in
            var escaped: SQLiteTransaction?
            try store.write { escaped = $0 }
            let error = #expect(throws: StoreError.self) {
                try escaped?.execute("INSERT INTO nodes (name, x, y) VALUES ('late', 0, 0)")
            }
            #expect(error?.code == .transactionMisuse)
            // The record methods too, and without the writer's date cache, which other writes use meanwhile.
            let insert = #expect(throws: StoreError.self) { try escaped?.insert(NodeVO(name: "late", x: 0, y: 0)) }
            #expect(insert?.code == .transactionMisuse)
            #expect(escaped?.timestamps == nil)
            #expect(try store.repository(NodeVO.self).count() == 0)
        }
    }

    @Test func readTransactionsRefuseWrites() throws {
        try withTemporaryStore { store, _ in
            let error = #expect(throws: StoreError.self) {
                try store.read { try $0.execute("INSERT INTO nodes (name, x, y) VALUES ('r', 0, 0)") }
            }
            #expect(error?.code == .readOnly)
        }
    }

    @Test func connectionsAreConfiguredAsDocumented() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.synchronous = .full
        try withTemporaryStore(configuration: configuration) { store, _ in
            try store.write { tx throws in
                #expect(try tx.fetchValue("PRAGMA synchronous") == .integer(2))
                #expect(try tx.fetchValue("PRAGMA journal_mode") == .text("wal"))
                #expect(try tx.fetchValue("PRAGMA foreign_keys") == .integer(1))
                #expect(try tx.fetchValue("PRAGMA busy_timeout") == .integer(5000))
            }
        }
        try withTemporaryStore { store, _ throws in
            #expect(try store.write { try $0.fetchValue("PRAGMA synchronous") } == .integer(1))
        }
    }

    @Test func foreignKeysAreEnforced() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.migrationSets = [
            try MigrationSet(
                name: "links",
                migrations: [
                    Migration(
                        version: 1, name: "create_links",
                        sql: "CREATE TABLE links (id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id));")
                ])
        ]
        try withTemporaryStore(configuration: configuration) { store, _ in
            let error = #expect(throws: StoreError.self) {
                try store.write { try $0.execute("INSERT INTO links (node_id) VALUES (99)") }
            }
            #expect(error?.code == .constraint)
            #expect(error?.sqliteCode == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        }
    }

    @Test func readersSeeOneSnapshotAndNeverWaitForTheWriter() throws {
        try withTemporaryStore { store, _ in
            try store.repository(NodeVO.self).insert(NodeVO(name: "committed", x: 0, y: 0))
            let inserted = DispatchSemaphore(value: 0)
            let readDone = DispatchSemaphore(value: 0)
            let writerDone = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                try? store.write { tx in
                    try tx.insert(NodeVO(name: "uncommitted", x: 0, y: 0))
                    inserted.signal()
                    readDone.wait(seconds: helperWaitSeconds)  // hold the write transaction open while the reader reads
                }
                writerDone.signal()
            }
            try inserted.waitForSignal("the uncommitted insert")
            // The writer holds the lock with an uncommitted row: the read neither waits nor sees it.
            #expect(try store.repository(NodeVO.self).count() == 1)
            readDone.signal()
            try writerDone.waitForSignal("the writer to commit")
            #expect(try store.repository(NodeVO.self).count() == 2)

            // Inside one read transaction, a commit made meanwhile stays invisible.
            let committed = DispatchSemaphore(value: 0)
            let (before, after) = try store.read { tx -> (Int, Int) in
                let before = try tx.count(RecordQuery<NodeVO>())
                DispatchQueue.global().async {
                    _ = try? store.repository(NodeVO.self).insert(NodeVO(name: "meanwhile", x: 0, y: 0))
                    committed.signal()
                }
                try committed.waitForSignal("the other thread's commit")
                return (before, try tx.count(RecordQuery<NodeVO>()))
            }
            #expect(before == 2)
            #expect(after == 2)
            #expect(try store.repository(NodeVO.self).count() == 3)
        }
    }

    @Test func aWriterBlockedPastTheBusyTimeoutGetsABusyError() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("busy.sqlite").path
            let holder = try SQLiteStore(path: path)
            defer { holder.close() }
            var configuration = SQLiteStoreConfiguration()
            configuration.busyTimeout = .milliseconds(200)
            let other = try SQLiteStore(path: path, configuration: configuration)
            defer { other.close() }

            let locked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let released = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                try? holder.write { tx in
                    try tx.insert(NodeVO(name: "holder", x: 0, y: 0))
                    locked.signal()
                    release.wait(seconds: helperWaitSeconds)
                }
                released.signal()
            }
            try locked.waitForSignal("the holder to take the write lock")
            let started = ContinuousClock.now
            let error = #expect(throws: StoreError.self) {
                try other.repository(NodeVO.self).insert(NodeVO(name: "blocked", x: 0, y: 0))
            }
            #expect(error?.code == .busy)
            #expect(ContinuousClock.now - started < .seconds(4))  // it gave up near its 200 ms timeout, not never
            release.signal()
            try released.waitForSignal("the holder to commit")
            try other.repository(NodeVO.self).insert(NodeVO(name: "after", x: 0, y: 0))
            #expect(try other.repository(NodeVO.self).fetchAll(RecordQuery().order(by: "id")).map(\.name) == ["holder", "after"])
        }
    }

    @Test func concurrentWritersAllLand() throws {
        try withTemporaryStore { store, _ throws in
            let ids = Recorder<Int64>()
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for index in 0..<50 {
                    if let node = try? store.repository(NodeVO.self).insert(NodeVO(name: "w\(worker)-\(index)", x: 0, y: 0)) {
                        ids.append(node.id!)
                    }
                    _ = try? store.repository(NodeVO.self).count()
                }
            }
            #expect(ids.all.count == 400)
            #expect(Set(ids.all).count == 400)
            #expect(try store.repository(NodeVO.self).count() == 400)
        }
    }

    @Test func asyncVariants() async throws {
        try await withTemporaryStore { store, _ in
            let node = try await store.write { tx in try tx.insert(NodeVO(name: "async", x: 1, y: 2)) }
            let fetched = try await store.read { tx in try tx.fetch(NodeVO.self, key: node.id!) }
            #expect(fetched == node)
            await #expect(throws: StoreError.self) {
                try await store.write { tx in try tx.execute("INSERT INTO nowhere VALUES (1)") }
            }
            async let a = store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            async let b = store.write { tx in try tx.insert(NodeVO(name: "b", x: 0, y: 0)) }
            _ = try await (a, b)
            #expect(try await store.read { try $0.count(RecordQuery<NodeVO>()) } == 3)
        }
    }

    @Test func inMemoryStoresWork() throws {
        let store = try SQLiteStore(path: ":memory:")
        defer { store.close() }
        try store.repository(NodeVO.self).insert(NodeVO(name: "mem", x: 0, y: 0))
        #expect(try store.repository(NodeVO.self).count() == 1)
        let error = #expect(throws: StoreError.self) {
            try store.read { try $0.execute("DELETE FROM nodes") }
        }
        #expect(error?.code == .readOnly)
        try store.repository(NodeVO.self).insert(NodeVO(name: "still writable", x: 0, y: 0))
        #expect(try store.repository(NodeVO.self).count() == 2)
    }

    @Test func aClosedStoreRefusesWork() throws {
        try withTemporaryStore { store, _ in
            store.close()
            let write = #expect(throws: StoreError.self) { try store.repository(NodeVO.self).count() }
            #expect(write?.code == .transactionMisuse)
            #expect(throws: StoreError.self) { try store.write { _ in } }
        }
    }
}
