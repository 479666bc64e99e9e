import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// `values(of:)` and `value(of:key:)` on real files: the rules of an observed value, each with a test that fails
/// when it breaks.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ObservedValuesTests {
    /// What a consumer task received: each element's sequence and the names of its records.
    private typealias Received = Recorder<(sequence: Int64, names: [String])>

    /// Iterates `values` in a task that records each element; returns the recorder, the task, and a flag set
    /// when the iteration ended.
    private func consume(_ values: ObservedValues<[NodeVO]>) -> (Received, Task<Void, any Error>, Locked<Bool>) {
        let received = Received()
        let ended = Locked(false)
        let task = Task {
            defer { ended.value = true }
            for try await element in values { received.append((element.sequence, element.value.map(\.name))) }
        }
        return (received, task, ended)
    }

    private static let bigX = RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name")

    @Test func theCurrentRecordsComeFirstThenEachChangedResultWithItsSequence() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "b", x: 200, y: 0))
            let (received, task, _) = consume(try store.values(of: Self.bigX))
            try await waitUntil("the first value") { received.count == 1 }
            try nodes.insert(NodeVO(name: "a", x: 300, y: 0))
            try await waitUntil("the second value") { received.count == 2 }
            #expect(received.all.map(\.sequence) == [1, 2])
            #expect(received.all.map(\.names) == [["b"], ["a", "b"]])
            task.cancel()
        }
    }

    @Test func aCommitThatLeavesTheResultUnchangedDeliversNothing() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "b", x: 200, y: 0))
            let (received, task, _) = consume(try store.values(of: Self.bigX))
            try await waitUntil("the first value") { received.count == 1 }
            try nodes.insert(NodeVO(name: "small", x: 5, y: 0))  // outside the filter: same result
            var small = try #require(try nodes.fetchAll(RecordQuery<NodeVO>().filter("name", equals: "small")).first)
            small.x = 6
            try nodes.update(small)  // still outside
            try nodes.insert(NodeVO(name: "c", x: 150, y: 0))  // inside: a new result
            try await waitUntil("the changed result") { received.count >= 2 }
            try await Task.sleep(for: .milliseconds(100))  // room for a wrong extra element to arrive
            #expect(received.all.map(\.sequence) == [1, 4])
            #expect(received.all.map(\.names) == [["b"], ["b", "c"]])
            task.cancel()
        }
    }

    @Test func cancellingTheConsumerEndsTheSequenceAndRemovesItsListener() async throws {
        try await withTemporaryStore { store, _ in
            let (received, task, ended) = consume(try store.values(of: Self.bigX))
            try await waitUntil("the first value") { received.count == 1 }
            #expect(store.registry.streamCount == 1)
            task.cancel()
            try await waitUntil("the iteration to end") { ended.value }
            try await waitUntil("the listener to be removed") { store.registry.streamCount == 0 }
            #expect(store.listenerNames.isEmpty)
        }
    }

    @Test func closingTheStoreEndsTheSequence() async throws {
        try await withTemporaryStore { store, _ in
            let (received, _, ended) = consume(try store.values(of: Self.bigX))
            try await waitUntil("the first value") { received.count == 1 }
            store.close()
            try await waitUntil("the iteration to end") { ended.value }
        }
    }

    @Test func anotherConnectionsCommitAndAShellWriteUpdateTheValue() async throws {
        try await withTemporaryStore { store, path in
            let (received, task, _) = consume(try store.values(of: Self.bigX))
            try await waitUntil("the first value") { received.count == 1 }
            // Another store on the same file: its commit reaches this one through the change feed.
            let other = try SQLiteStore(path: path)
            try other.repository(NodeVO.self).insert(NodeVO(name: "from-other", x: 500, y: 0))
            other.close()
            try await waitUntil("the other connection's commit") { received.all.last?.names == ["from-other"] }
            // The sqlite3 shell logs nothing: an external change, and the value is read again.
            let shell = try runSQLiteShell(path, "UPDATE nodes SET name = 'renamed-by-shell' WHERE name = 'from-other';")
            #expect(shell.status == 0, "\(shell.stderr)")
            try await waitUntil("the shell's write") { received.all.last?.names == ["renamed-by-shell"] }
            let sequences = received.all.map(\.sequence)
            #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
            task.cancel()
        }
    }

    @Test func aRecordByKeyFollowsItsInsertUpdateAndDelete() async throws {
        try await withTemporaryStore { store, _ in
            let received = Recorder<(sequence: Int64, name: String?)>()
            let values = try store.value(of: UserInfo.self, key: "me")
            let task = Task {
                for try await element in values { received.append((element.sequence, element.value?.name)) }
            }
            try await waitUntil("the first value") { received.count == 1 }
            let users = store.repository(UserInfo.self)
            try users.insert(UserInfo(id: "me", name: "Ada"))
            try users.insert(UserInfo(id: "someone-else", name: "Bob"))  // another key: nothing
            try users.update(UserInfo(id: "me", name: "Grace"))
            _ = try users.delete(UserInfo(id: "me", name: "Grace"))
            try await waitUntil("the delete") { received.all.last.map { $0.name == nil && $0.sequence == 4 } ?? false }
            // Values coalesce under a burst (the latest wins), but never go back and never repeat.
            let all = received.all
            #expect(all.first?.name == nil && all.first?.sequence == 0)
            #expect(all.map(\.sequence) == all.map(\.sequence).sorted() && Set(all.map(\.sequence)).count == all.count)
            #expect(!all.map(\.sequence).contains(2))
            task.cancel()
        }
    }

    /// A record whose `count` column the test fills with text, which does not decode as an integer.
    struct Counter: Record, Equatable {
        typealias Key = Int64
        static let tableName = "counters"
        var id: Int64
        var count: Int
    }

    @Test func aChangedRowThatDoesNotDecodeEndsTheSequenceWithTheError() async throws {
        try await withTemporaryStore { store, _ in
            try await store.write { tx in
                try tx.execute("CREATE TABLE counters (id INTEGER PRIMARY KEY, count)")
                try tx.execute("INSERT INTO counters VALUES (1, 1)")
            }
            let values = try store.value(of: Counter.self, key: 1)
            let received = Recorder<Int?>()
            let failure = Locked<String?>(nil)
            let task = Task {
                do {
                    for try await element in values { received.append(element.value?.count) }
                } catch {
                    failure.value = "\(error)"
                }
            }
            try await waitUntil("the first value") { received.count == 1 }
            try await store.write { try $0.execute("UPDATE counters SET count = 'many' WHERE id = 1") }
            try await waitUntil("the sequence to end with the error") { failure.value != nil }
            #expect(received.all == [1])
            #expect(failure.value?.contains("count") == true)
            try await waitUntil("the listener to be removed") { store.registry.streamCount == 0 }
            task.cancel()
        }
    }
}
