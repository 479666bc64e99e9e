import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// `SQLiteStore.checkpoint(_:)`: the WAL's frames, the modes, old snapshots, and a store that keeps working.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct CheckpointTests {
    private func insertNodes(_ store: SQLiteStore, _ count: Int, from first: Int = 0) throws {
        for index in first..<(first + count) { try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
    }

    private func walSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int
    }

    @Test func writesLeaveFramesThatAPassiveCheckpointCopies() throws {
        try withTemporaryStore { store, _ in
            try insertNodes(store, 5)
            let before = try #require(store.walFrames())
            #expect(before.walFrames > 0 && before.checkpointedFrames == 0, "\(before)")
            // The store's change feed reads now and then: a passive checkpoint that meets one of its reads leaves
            // the frames that read may need. Once no read is under way, it copies them all.
            var result = try store.checkpoint()
            let deadline = Date().addingTimeInterval(10)
            while !result.isComplete, Date() < deadline {
                usleep(5_000)  // lets the feed's read end; the loop is bounded by the deadline
                result = try store.checkpoint()
            }
            #expect(result.walFrames == before.walFrames, "\(result) after \(before)")
            #expect(result.checkpointedFrames == result.walFrames && result.isComplete)
            #expect(store.walFrames() == result, "the WAL index agrees")
        }
    }

    @Test func truncateEmptiesTheWALFile() throws {
        try withTemporaryStore { store, path in
            try insertNodes(store, 5)
            #expect((walSize(path) ?? 0) > 0)
            let result = try store.checkpoint(.truncate)
            #expect(result == CheckpointResult(walFrames: 0, checkpointedFrames: 0) && result.isComplete, "\(result)")
            #expect(walSize(path) == 0, "the -wal file is truncated to zero bytes")
            #expect(store.walFrames()?.walFrames == 0)
        }
    }

    @Test(arguments: [CheckpointMode.full, .restart])
    func fullAndRestartCopyEveryFrame(mode: CheckpointMode) throws {
        try withTemporaryStore { store, _ in
            try insertNodes(store, 3)
            let result = try store.checkpoint(mode)
            #expect(result.walFrames > 0 && result.isComplete, "\(mode): \(result)")
        }
    }

    @Test func passiveLeavesWhatAnOlderSnapshotStillNeeds() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.busyTimeout = .milliseconds(200)
        try withTemporaryStore(configuration: configuration) { store, _ in
            try insertNodes(store, 3)
            try store.read { tx in
                #expect(try tx.count(RecordQuery<NodeVO>()) == 3)  // the snapshot is taken here
                try insertNodes(store, 3, from: 3)
                let result = try store.checkpoint(.passive)
                #expect(result.walFrames > 0 && result.checkpointedFrames < result.walFrames, "\(result)")
                #expect(!result.isComplete)
                // A truncate must wait for this reader: busy after the busy timeout, and the frames stay.
                let error = #expect(throws: StoreError.self) { try store.checkpoint(.truncate) }
                #expect(error?.code == .busy)
                #expect(error?.message.contains("checkpoint (truncate) could not finish within the busy timeout") == true, "\(String(describing: error))")
                #expect(try tx.count(RecordQuery<NodeVO>()) == 3, "the reader still sees its snapshot")
            }
            let after = try store.checkpoint(.truncate)
            #expect(after.isComplete)
            #expect(try store.read { try $0.count(RecordQuery<NodeVO>()) } == 6)
        }
    }

    @Test func theStoreKeepsWritingAndNotifyingAfterACheckpoint() throws {
        try withTemporaryStore { store, path in
            let (recorder, token) = store.record()
            try insertNodes(store, 2)
            try store.checkpoint(.truncate)
            try insertNodes(store, 2, from: 2)
            #expect(recorder.wait(for: 4, timeout: 10))
            #expect(recorder.commits.map(\.sequence) == [1, 2, 3, 4])
            #expect(try store.read { try $0.count(RecordQuery<NodeVO>()) } == 4)
            #expect((walSize(path) ?? 0) > 0, "the WAL grows again")
            #expect(try store.checkpoint().isComplete)
            withExtendedLifetime(token) {}
        }
    }

    @Test func anInMemoryStoreHasNothingToCheckpoint() throws {
        let store = try SQLiteStore(path: ":memory:")
        defer { store.close() }
        try insertNodes(store, 2)
        for mode in CheckpointMode.allCases {
            #expect(try store.checkpoint(mode) == CheckpointResult(walFrames: 0, checkpointedFrames: 0), "\(mode)")
        }
        #expect(store.walFrames() == nil)
    }

    @Test func aClosedStoreOrANestedCallIsRefused() throws {
        try withTemporaryStore { store, _ in
            let nested = #expect(throws: StoreError.self) { try store.write { _ in try store.checkpoint() } }
            #expect(nested?.code == .transactionMisuse)
            store.close()
            let closed = #expect(throws: StoreError.self) { try store.checkpoint() }
            #expect(closed?.code == .transactionMisuse)
        }
    }
}
