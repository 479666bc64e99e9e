import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// An observed query does less work than re-running it: a commit whose rows cannot change its result reads
/// nothing, a change whose effect is certain is applied to the held result, and everything else reads again.
/// Every element must still equal a fresh read; each test counts the query's reads.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ObservedQueryTests {
    /// One observed query: what it delivered and how often it read.
    private final class Observation: Sendable {
        let query: RecordQuery<NodeVO>
        let state: ObservedQueryState<NodeVO>
        let received = Recorder<Observed<[NodeVO]>>()
        let task: Task<Void, any Error>

        init(_ query: RecordQuery<NodeVO>, in store: SQLiteStore) throws {
            self.query = query
            state = ObservedQueryState(query)
            let values = try store.observeQuery(query, state: state, isSame: ==)
            let received = received
            task = Task { for try await element in values { received.append(element) } }
        }

        var last: [NodeVO]? { received.all.last?.value }

        /// Waits until the last element equals what `store` reads now.
        func waitForFreshRead(in store: SQLiteStore, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let fresh = try await store.read { [query] in try $0.fetchAll(query) }
            try await waitUntil("a value equal to a fresh read", sourceLocation: sourceLocation) { last == fresh }
        }
    }

    private static let right = RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name").limit(50)

    @Test func commitsWhoseRowsMissTheFilterReadNothingAndDeliverNothing() async throws {
        try await withTemporaryStore { store, path in
            let nodes = store.repository(NodeVO.self)
            var b = try nodes.insert(NodeVO(name: "b", x: 200, y: 0))
            let observation = try Observation(Self.right, in: store)
            try await waitUntil("the first value") { observation.received.count == 1 }
            var small = try nodes.insert(NodeVO(name: "small", x: 5, y: 0))
            small.x = 6
            try nodes.update(small)
            try nodes.delete(small)
            let other = try SQLiteStore(path: path)  // another connection's commit, through the feed
            try other.repository(NodeVO.self).insert(NodeVO(name: "elsewhere", x: 1, y: 0))
            other.close()
            for index in 0..<300 { try nodes.insert(NodeVO(name: "burst \(index)", x: 1, y: 0)) }  // one commit each
            b.x = 250  // inside, before and after: applied in memory
            let moved = b
            let last = try await store.writeReturningCommit { tx in try tx.update(moved) }
            try await observation.waitForFreshRead(in: store)
            #expect(observation.state.readCount == 1)
            #expect(observation.received.all.map(\.sequence) == [1, try #require(last.sequence)])
            observation.task.cancel()
        }
    }

    @Test func certainChangesAreAppliedInMemoryAndUncertainOnesReadAgain() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            for name in ["a", "c", "e"] { try nodes.insert(NodeVO(name: name, x: 200, y: 0)) }
            let firstThree = RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name").limit(3)
            let observation = try Observation(firstThree, in: store)
            try await waitUntil("the first value") { observation.received.count == 1 }
            try nodes.insert(NodeVO(name: "b", x: 150, y: 0))  // pushes "e" out
            try await observation.waitForFreshRead(in: store)
            try nodes.insert(NodeVO(name: "z", x: 150, y: 0))  // sorts beyond the limit: no new value
            var a = try #require(try nodes.fetchAll(RecordQuery<NodeVO>().filter("name", equals: "a")).first)
            a.name = "bb"  // moves inside the result
            try nodes.update(a)
            try await observation.waitForFreshRead(in: store)
            #expect(observation.last?.map(\.name) == ["b", "bb", "c"])
            #expect(observation.state.readCount == 1)
            #expect(observation.received.count == 3)
            // A row leaves a full result: which row comes next only the database knows.
            let b = try #require(try nodes.fetchAll(RecordQuery<NodeVO>().filter("name", equals: "b")).first)
            try nodes.delete(b)
            try await observation.waitForFreshRead(in: store)
            #expect(observation.last?.map(\.name) == ["bb", "c", "e"])
            #expect(observation.state.readCount == 2)
            observation.task.cancel()
        }
    }

    @Test func aTransactionOfSeveralChangesIsAppliedInOrder() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "m", x: 200, y: 0))
            let observation = try Observation(RecordQuery<NodeVO>().filter("x", .greaterThanOrEqual, 100.0).order(by: "x", descending: true), in: store)
            try await waitUntil("the first value") { observation.received.count == 1 }
            try await store.write { tx in
                var n = try tx.insert(NodeVO(name: "n", x: 100, y: 0))
                try tx.insert(NodeVO(name: "o", x: 99, y: 0))  // outside
                n.x = 300
                try tx.update(n)
                var m = try #require(try tx.fetchAll(RecordQuery<NodeVO>().filter("name", equals: "m")).first)
                m.x = 50  // leaves the result
                try tx.update(m)
            }
            try await observation.waitForFreshRead(in: store)
            #expect(observation.last?.map(\.name) == ["n"])
            #expect(observation.state.readCount == 1)
            observation.task.cancel()
        }
    }

    @Test func filtersOnlyTheDatabaseCanEvaluateReadAgainOnEveryCommitToTheTable() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "alpha", x: 200, y: 0))
            let bySQL = try Observation(RecordQuery<NodeVO>().filter(sql: "x + y > ?", arguments: [100]).order(by: "name"), in: store)
            let byLike = try Observation(RecordQuery<NodeVO>().filter("name", .like, "al%").order(by: "name"), in: store)
            let unordered = try Observation(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0), in: store)
            try await waitUntil("the first values") { [bySQL, byLike, unordered].allSatisfy { $0.received.count == 1 } }
            try nodes.insert(NodeVO(name: "beta", x: 1, y: 0))  // matches none of them
            try await waitUntil("the fallbacks to read again") { bySQL.state.readCount == 2 && byLike.state.readCount == 2 }
            try nodes.insert(NodeVO(name: "algae", x: 300, y: 0))  // matches all
            for observation in [bySQL, byLike, unordered] { try await observation.waitForFreshRead(in: store) }
            #expect(bySQL.state.readCount == 3)
            #expect(byLike.state.readCount == 3)
            // Its filter is evaluated in memory (beta is skipped), but without an order the database decides where
            // algae goes.
            #expect(unordered.state.readCount == 2)
            for observation in [bySQL, byLike, unordered] { observation.task.cancel() }
        }
    }

    @Test func aSchemaChangeReadsAgain() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "a", x: 200, y: 0))
            let observation = try Observation(Self.right, in: store)
            try await waitUntil("the first value") { observation.received.count == 1 }
            try await store.write { tx in
                try tx.execute("CREATE INDEX nodes_by_x ON nodes(x)")
                try tx.execute("UPDATE nodes SET x = 1 WHERE name = 'a'")
            }
            try await observation.waitForFreshRead(in: store)
            #expect(observation.last == [])
            #expect(observation.state.readCount == 2)
            observation.task.cancel()
        }
    }

    /// Random writes against several observed queries: after the writes stop, each last value equals a fresh
    /// read, values only move forward, and most commits were handled without reading.
    @Test func underRandomWritesTheLastValueIsAFreshReadAndMostCommitsReadNothing() async throws {
        try await withTemporaryStore { store, path in
            let nodes = store.repository(NodeVO.self)
            var generator = SeededGenerator(seed: 42)
            let names = (0..<12).map { "n\($0)" }
            for name in names.prefix(6) { try nodes.insert(NodeVO(name: name, x: Double.random(in: 0...200, using: &generator), y: 0)) }
            let queries = [
                Self.right,
                RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name").limit(3),
                RecordQuery<NodeVO>().filter("x", .lessThanOrEqual, 50.0).order(by: "x", descending: true).limit(2),
                RecordQuery<NodeVO>().filter("name", in: ["n1", "n3", "n5", "n7"]).order(by: "y"),
                RecordQuery<NodeVO>().filter("color", equals: "#000000").order(by: "name"),
            ]
            let observations = try queries.map { try Observation($0, in: store) }
            try await waitUntil("the first values") { observations.allSatisfy { $0.received.count == 1 } }
            let other = try SQLiteStore(path: path)
            defer { other.close() }
            let commits = 200
            for round in 0..<commits {
                try Self.writeRandomly(round, to: round % 5 == 0 ? other : store, names: names, &generator)
            }
            for observation in observations {
                try await observation.waitForFreshRead(in: store)
                let sequences = observation.received.all.map(\.sequence)
                #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "\(observation.query.conditions.map(\.sql))")
            }
            let reads = observations.map(\.state.readCount)
            #expect(reads.reduce(0, +) < commits * queries.count / 2, "reads \(reads) for \(commits) commits")
            #expect(observations[4].state.readCount == 1)  // no row ever matches it
            for observation in observations { observation.task.cancel() }
        }
    }

    /// One transaction of one to three random inserts, updates and deletes of nodes named from `names`.
    private static func writeRandomly(_ round: Int, to writer: SQLiteStore, names: [String], _ generator: inout SeededGenerator) throws {
        try writer.write { tx in
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let existing = try tx.fetchAll(RecordQuery<NodeVO>())
                let roll = Int.random(in: 0..<10, using: &generator)
                if roll < 3 || existing.count < 3 {
                    let name = names.randomElement(using: &generator)!
                    try tx.insert(NodeVO(name: name, x: Double.random(in: 0...200, using: &generator), y: Double(round)))
                } else if roll < 8 {
                    var node = existing.randomElement(using: &generator)!
                    if Bool.random(using: &generator) { node.x = Double.random(in: 0...200, using: &generator) }
                    if Bool.random(using: &generator) { node.name = names.randomElement(using: &generator)! }
                    try tx.update(node)
                } else {
                    try tx.delete(existing.randomElement(using: &generator)!)
                }
            }
        }
    }
}
