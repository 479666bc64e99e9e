import Foundation
import ObservableStoreCore
import StoreTestSupport
import Testing

/// A failure the cases throw on purpose, to roll back.
struct Rollback: Error {}

extension ConformanceCases {
    /// A write whose closure throws leaves nothing: no row, no sequence, no event; the next commit takes the next
    /// sequence (no gap).
    static func aThrowingWriteLeavesNothing<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let (recorder, token) = record(store)
            defer { token.cancel() }
            let before = try store.lastSequence()
            #expect(throws: Rollback.self) {
                try store.write(origin: nil) { tx in
                    _ = try tx.insert(node("gone"))
                    _ = try tx.execute("UPDATE nodes SET x = 1", [])
                    throw Rollback()
                }
            }
            #expect(try store.read { try $0.count(RecordQuery<NodeVO>()) } == 0)
            #expect(try store.lastSequence() == before)
            let kept = try store.writeReturningCommit(origin: nil) { tx in _ = try tx.insert(node("kept")) }
            #expect(kept.sequence == before + 1)
            try waitForCommits(recorder, 1, "the kept commit")
            #expect(recorder.commits.map(\.sequence) == [before + 1])
            #expect(recorder.changes.map { $0.new?.value("name", as: String.self) } == ["kept"])
        }
    }

    /// A savepoint whose body throws is rolled back alone: the rest of the write commits, and the commit holds
    /// nothing of the rolled-back part.
    static func savepointRollbackKeepsTheRest<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let (recorder, token) = record(store)
            defer { token.cancel() }
            try store.write(origin: nil) { tx in
                _ = try tx.insert(node("a"))
                #expect(throws: Rollback.self) {
                    try tx.savepoint { inner in
                        _ = try inner.insert(node("b"))
                        _ = try inner.execute("UPDATE nodes SET name = 'changed'", [])
                        throw Rollback()
                    }
                }
                let kept = try tx.savepoint { inner in try inner.insert(node("c")) }
                #expect(kept.name == "c")
            }
            #expect(try store.read { try $0.fetchAll(RecordQuery<NodeVO>().order(by: "name")) }.map(\.name) == ["a", "c"])
            try waitForCommits(recorder, 1, "the write's commit")
            #expect(recorder.commits.count == 1)
            #expect(recorder.changes.map(\.operation) == [.insert, .insert])
            #expect(recorder.changes.map { $0.new?.value("name", as: String.self) } == ["a", "c"])
        }
    }

    /// A multi-row UPDATE reports every row, with old and new values; an unfiltered DELETE reports every row.
    static func multiRowUpdateAndUnfilteredDeleteReportEveryRow<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let nodes = try insertNodes(store, ["a", "b", "c"])
            let keys = nodes.map { "\($0.id!)" }
            let (recorder, token) = record(store)
            defer { token.cancel() }
            #expect(try store.write(origin: nil) { try $0.execute("UPDATE nodes SET x = x + 1", []) } == 3)
            #expect(try store.write(origin: nil) { try $0.execute("DELETE FROM nodes", []) } == 3)
            try waitForCommits(recorder, 2, "the update and the delete")
            let update = recorder.commits[0].changes
            #expect(update.map(\.summary).sorted() == keys.map { "update nodes \($0)" })
            #expect(update.allSatisfy { $0.old?.value("x", as: Double.self) == 0 && $0.new?.value("x", as: Double.self) == 1 })
            #expect(update.allSatisfy { $0.changedColumns.contains("x") && !$0.changedColumns.contains("name") })
            #expect(recorder.commits[1].changes.map(\.summary).sorted() == keys.map { "delete nodes \($0)" })
            #expect(recorder.commits[1].changes.allSatisfy { $0.new == nil && $0.old?.value("name", as: String.self) != nil })
        }
    }

    /// An UPDATE that changes a primary key is a delete of the old key and an insert of the new one.
    static func primaryKeyChangeIsADeleteAndAnInsert<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let key = try #require(try insertNodes(store, ["n"])[0].id)
            let (recorder, token) = record(store)
            defer { token.cancel() }
            try store.write(origin: nil) { tx in _ = try tx.execute("UPDATE nodes SET id = \(key + 100) WHERE id = \(key)", []) }
            try waitForCommits(recorder, 1, "the key change")
            #expect(recorder.commits[0].changes.map(\.summary) == ["delete nodes \(key)", "insert nodes \(key + 100)"])
            #expect(try store.read { try $0.fetch(NodeVO.self, key: key + 100) }?.name == "n")
        }
    }

    /// Events come only after the commit: a listener has seen nothing while the write runs, and when it sees the
    /// commit, a read shows its rows.
    static func eventsOnlyAfterCommit<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let seenInHandler = Locked<[Int]>([])
            let token = store.listen("after-commit", filter: .table("nodes"), options: ListenerOptions()) { _ in
                seenInHandler.withLock { $0.append((try? store.read { try $0.count(RecordQuery<NodeVO>()) }) ?? -1) }
            }
            defer { token.cancel() }
            try store.write(origin: nil) { tx in
                _ = try tx.insert(node("a"))
                usleep(100_000)  // room for a wrong early delivery
                #expect(seenInHandler.value.isEmpty)
                _ = try tx.insert(node("b"))
            }
            try waitUntil("the commit's event") { seenInHandler.value.count == 1 }
            #expect(seenInHandler.value == [2])
        }
    }

    /// Commits from several threads at once: their sequences are 1…n with no gap, each write's own, and a
    /// listener receives them in that order, each once.
    static func concurrentCommitsAreInSequenceOrder<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let (recorder, token) = record(store, filter: .table("nodes"))
            defer { token.cancel() }
            let start = try store.lastSequence()
            let threads = 4
            let writesPerThread = 25
            let jobs = (0..<threads).map { thread in
                ThreadJob { () -> Result<[Int64: (name: String, origin: String)], any Error> in
                    Result {
                        var mine: [Int64: (name: String, origin: String)] = [:]
                        for index in 0..<writesPerThread {
                            let name = "t\(thread)-\(index)"
                            let origin = "thread-\(thread)"
                            let committed = try store.writeReturningCommit(origin: origin) { tx in _ = try tx.insert(node(name)) }
                            guard let sequence = committed.sequence else { throw StoreError(.internal, "no sequence for \(name)") }
                            mine[sequence] = (name, origin)
                        }
                        return mine
                    }
                }
            }
            var written: [Int64: (name: String, origin: String)] = [:]
            for job in jobs { written.merge(try job.result("a writer thread", timeout: 60).get()) { $1 } }
            let total = threads * writesPerThread
            #expect(written.keys.sorted() == Array(start + 1...start + Int64(total)))
            try waitForCommits(recorder, total, "every commit")
            let commits = recorder.commits
            #expect(commits.map(\.sequence) == Array(start + 1...start + Int64(total)))
            #expect(commits.allSatisfy { $0.changes.first?.new?.value("name", as: String.self) == written[$0.sequence]?.name })
            #expect(commits.allSatisfy { $0.origin == written[$0.sequence]?.origin })
            #expect(try store.lastSequence() == start + Int64(total))
        }
    }
}
