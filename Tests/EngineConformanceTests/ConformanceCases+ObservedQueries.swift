import Foundation
import ObservableStoreCore
import StoreTestSupport
import Testing

/// An observed query does less work than re-running it, on both engines: a commit whose rows cannot change its result
/// reads nothing, a change whose effect is certain is applied to the held result, and everything else reads again.
/// Every element must still equal a fresh read; each case counts the query's reads. The queries order by numbers, not
/// by text: whether text order is modelled depends on the collation (docs/OBSERVATION.md, "Observed values").
extension ConformanceCases {
    /// One observed query: what it delivered and how often it read.
    final class QueryWatch<S: RecordStore>: Sendable {
        let query: RecordQuery<NodeVO>
        let state: ObservedQueryState<S.Transaction, NodeVO>
        let received = Recorder<Observed<[NodeVO]>>()
        let task: Task<Void, any Error>

        init(_ query: RecordQuery<NodeVO>, in store: S) throws {
            self.query = query
            state = store.engineHandle.engine.observedQueryState(of: query)
            let values = try store.observe(state, isSame: ==)
            let received = received
            task = Task { for try await element in values { received.append(element) } }
        }

        var last: [NodeVO]? { received.all.last?.value }
        var names: [String]? { last?.map(\.name) }

        /// Waits until the last element equals what `store` reads now.
        func waitForFreshRead(in store: S, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let fresh = try await store.read { [query] in try $0.fetchAll(query) }
            try await waitUntil("a value equal to a fresh read", sourceLocation: sourceLocation) { self.last == fresh }
        }
    }

    /// The node named `name`, as stored.
    static func storedNode<S: RecordStore>(_ name: String, in store: S) throws -> NodeVO {
        try #require(try store.read { tx in try tx.fetchAll(RecordQuery<NodeVO>().filter("name", equals: name)).first })
    }

    /// Commits to the table whose rows match the filter neither before nor after (this store's, another store's on the
    /// same location, a burst) read nothing and deliver nothing; a change inside the result is applied in memory.
    static func commitsOutsideAnObservedQueryReadNothing<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            try insertNodes(store, ["b"])
            var b = try storedNode("b", in: store)
            b.x = 200
            let placed = b
            try await store.write(origin: nil) { tx in try tx.update(placed) }
            let watch = try QueryWatch(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "x").limit(50), in: store)
            try await waitUntil("the first value") { watch.received.count == 1 }
            let first = try #require(watch.received.all.first?.sequence)
            var small = try await store.write(origin: nil) { tx in try tx.insert(node("small", x: 5)) }
            small.x = 6
            let moved = small
            try await store.write(origin: nil) { tx in try tx.update(moved) }
            try await store.write(origin: nil) { tx in _ = try tx.delete(moved) }
            let other = try engine.open()  // another program's commit, through the feed
            try insertNodes(other, ["elsewhere"])
            other.close()
            for index in 0..<200 { try insertNodes(store, ["burst \(index)"]) }  // x = 0, one commit each
            b.x = 250  // inside, before and after: applied in memory
            let inside = b
            let last = try await store.writeReturningCommit(origin: nil) { tx in try tx.update(inside) }
            try await watch.waitForFreshRead(in: store)
            #expect(watch.state.readCount == 1)
            #expect(watch.received.all.map(\.sequence) == [first, try #require(last.sequence)])
            watch.task.cancel()
        }
    }

    /// An insert that pushes a row out of a result cut by `limit`, one that sorts beyond it, and an update that moves
    /// a row within it are applied in memory; a row leaving a full result reads again (only the database knows which
    /// row comes next).
    static func certainChangesAreAppliedInMemoryAndUncertainOnesReadAgain<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            for (name, x) in [("a", 110.0), ("c", 130.0), ("e", 150.0)] {
                try await store.write(origin: nil) { tx in _ = try tx.insert(node(name, x: x)) }
            }
            let firstThree = RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "x").limit(3)
            let watch = try QueryWatch(firstThree, in: store)
            try await waitUntil("the first value") { watch.received.count == 1 }
            try await store.write(origin: nil) { tx in _ = try tx.insert(node("b", x: 120)) }  // pushes "e" out
            try await watch.waitForFreshRead(in: store)
            try await store.write(origin: nil) { tx in _ = try tx.insert(node("z", x: 500)) }  // beyond the limit: no new value
            var a = try storedNode("a", in: store)
            a.x = 125  // moves within the result
            let moved = a
            try await store.write(origin: nil) { tx in try tx.update(moved) }
            try await watch.waitForFreshRead(in: store)
            #expect(watch.names == ["b", "a", "c"])
            #expect(watch.state.readCount == 1)
            #expect(watch.received.count == 3)
            let b = try storedNode("b", in: store)
            try await store.write(origin: nil) { tx in _ = try tx.delete(b) }
            try await watch.waitForFreshRead(in: store)
            #expect(watch.names == ["a", "c", "e"])
            #expect(watch.state.readCount == 2)
            watch.task.cancel()
        }
    }

    /// A transaction's changes (an insert, one outside, an update of the new row, one leaving the result) are applied
    /// in order, without reading.
    static func aTransactionOfSeveralChangesIsAppliedInOrder<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            try await store.write(origin: nil) { tx in _ = try tx.insert(node("m", x: 200)) }
            let query = RecordQuery<NodeVO>().filter("x", .greaterThanOrEqual, 100.0).order(by: "x", descending: true)
            let watch = try QueryWatch(query, in: store)
            try await waitUntil("the first value") { watch.received.count == 1 }
            try await store.write(origin: nil) { tx in
                var n = try tx.insert(node("n", x: 100))
                try tx.insert(node("o", x: 99))  // outside
                n.x = 300
                try tx.update(n)
                var m = try #require(try tx.fetchAll(RecordQuery<NodeVO>().filter("name", equals: "m")).first)
                m.x = 50  // leaves the result
                try tx.update(m)
            }
            try await watch.waitForFreshRead(in: store)
            #expect(watch.names == ["n"])
            #expect(watch.state.readCount == 1)
            watch.task.cancel()
        }
    }

    /// `filter(sql:)` and `LIKE` read again on every commit to the table; a query without an order evaluates its filter
    /// in memory but reads again where a row goes; a schema change reads again.
    static func whatOnlyTheDatabaseKnowsReadsAgain<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            try await store.write(origin: nil) { tx in _ = try tx.insert(node("alpha", x: 200)) }
            let bySQL = try QueryWatch(RecordQuery<NodeVO>().filter(sql: "x + y > ?", arguments: [100]).order(by: "x"), in: store)
            let byLike = try QueryWatch(RecordQuery<NodeVO>().filter("name", .like, "al%").order(by: "x"), in: store)
            let unordered = try QueryWatch(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0), in: store)
            let watches = [bySQL, byLike, unordered]
            try await waitUntil("the first values") { watches.allSatisfy { $0.received.count == 1 } }
            try await store.write(origin: nil) { tx in _ = try tx.insert(node("beta", x: 1)) }  // matches none of them
            try await waitUntil("the fallbacks to read again") { bySQL.state.readCount == 2 && byLike.state.readCount == 2 }
            try await store.write(origin: nil) { tx in _ = try tx.insert(node("algae", x: 300)) }  // matches all
            for watch in watches { try await watch.waitForFreshRead(in: store) }
            #expect(bySQL.state.readCount == 3)
            #expect(byLike.state.readCount == 3)
            // Its filter is judged in memory (beta is skipped), but without an order the database decides where algae goes.
            #expect(unordered.state.readCount == 2)

            try await store.write(origin: nil) { tx in
                try tx.execute("CREATE INDEX nodes_by_x ON nodes(x)", [])
                try tx.execute("UPDATE nodes SET x = 1 WHERE name = 'alpha'", [])
            }
            for watch in watches { try await watch.waitForFreshRead(in: store) }
            #expect(unordered.state.readCount == 3)
            #expect(unordered.names == ["algae"])
            for watch in watches { watch.task.cancel() }
        }
    }

    /// Random writes, a fifth of them by another store on the same location, against several observed queries: after
    /// the writes stop each last value equals a fresh read, values only move forward, and most commits read nothing.
    static func underRandomWritesObservedQueriesEndFreshAndMostlyReadNothing<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            var generator = SeededGenerator(seed: 42)
            let names = (0..<12).map { "n\($0)" }
            for name in names.prefix(6) {
                let x = Double.random(in: 0...200, using: &generator)
                try await store.write(origin: nil) { tx in _ = try tx.insert(node(name, x: x)) }
            }
            let queries = [
                RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "x").limit(50),
                RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "y").limit(3),
                RecordQuery<NodeVO>().filter("x", .lessThanOrEqual, 50.0).order(by: "x", descending: true).limit(2),
                RecordQuery<NodeVO>().filter("name", in: ["n1", "n3", "n5", "n7"]).order(by: "y"),
                RecordQuery<NodeVO>().filter("color", equals: "#000000").order(by: "x"),
            ]
            let watches = try queries.map { try QueryWatch($0, in: store) }
            try await waitUntil("the first values") { watches.allSatisfy { $0.received.count == 1 } }
            let other = try engine.open()
            defer { other.close() }
            let commits = 150
            for round in 0..<commits {
                if round % 5 == 0 {
                    try writeRandomly(round, to: other, names: names, &generator)
                } else {
                    try writeRandomly(round, to: store, names: names, &generator)
                }
            }
            for watch in watches {
                try await watch.waitForFreshRead(in: store)
                let sequences = watch.received.all.map(\.sequence)
                #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "\(watch.query.conditions.map(\.sql))")
            }
            let reads = watches.map(\.state.readCount)
            #expect(reads.reduce(0, +) < commits * queries.count / 2, "reads \(reads) for \(commits) commits")
            #expect(watches[4].state.readCount == 1)  // no row ever matches it
            for watch in watches { watch.task.cancel() }
        }
    }

    /// One transaction of one to three random inserts, updates and deletes of nodes named from `names`.
    private static func writeRandomly<S: RecordStore>(
        _ round: Int, to writer: S, names: [String], _ generator: inout SeededGenerator
    ) throws {
        var plan: [(roll: Int, name: String, x: Double, changesX: Bool, renames: Bool, pick: Int)] = []
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            plan.append((
                Int.random(in: 0..<10, using: &generator), names.randomElement(using: &generator)!,
                Double.random(in: 0...200, using: &generator), Bool.random(using: &generator), Bool.random(using: &generator),
                Int.random(in: 0..<1000, using: &generator)
            ))
        }
        let steps = plan
        try writer.write(origin: nil) { tx in
            for step in steps {
                let existing = try tx.fetchAll(RecordQuery<NodeVO>().order(by: "id"))
                if step.roll < 3 || existing.count < 3 {
                    try tx.insert(NodeVO(name: step.name, x: step.x, y: Double(round)))
                } else if step.roll < 8 {
                    var node = existing[step.pick % existing.count]
                    if step.changesX { node.x = step.x }
                    if step.renames { node.name = step.name }
                    try tx.update(node)
                } else {
                    try tx.delete(existing[step.pick % existing.count])
                }
            }
        }
    }
}
