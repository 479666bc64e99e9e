import Foundation
import ObservableStoreCore
import StoreTestSupport
import Testing

extension ConformanceCases {
    /// Bind and fire while a writer thread races the bind: the values the handler receives go up one by one from the
    /// value at the bind, with no gap and no duplicate, to the last written value.
    static func bindAndFireHasNoGapOrDuplicate<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let inserted = try insertNodes(store, ["counter"])[0]
            let key = try #require(inserted.id)
            let writes = 300
            let writer = ThreadJob { () -> Result<Void, any Error> in
                Result {
                    var counter = inserted
                    for value in 1...writes {
                        counter.x = Double(value)
                        try store.write(origin: "writer") { tx in try tx.update(counter) }
                    }
                }
            }
            usleep(2_000)  // let the writer start: the bind must race it
            let received = Recorder<Double?>()
            let token = try store.bindAndFire("counter", NodeVO.self, key: key, options: ListenerOptions()) { node in
                received.append(node?.x)
            }
            defer { token.cancel() }
            try writer.result("the writer", timeout: 60).get()
            try waitUntil("the last value") { received.all.last == Double(writes) }
            let values = received.all.compactMap { $0 }
            #expect(values.count == received.count)  // never nil: the record exists throughout
            let first = try #require(values.first)
            #expect(values == Array(stride(from: first, through: Double(writes), by: 1)))
        }
    }

    /// The key-path form fires only when that property changes; the query form delivers the query's records again
    /// after each commit to its table; a deleted record fires nil.
    static func bindAndFireOnAPropertyAndAQuery<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            var node = try insertNodes(store, ["first"])[0]
            let key = try #require(node.id)
            let names = Recorder<String?>()
            let nameToken = try store.bindAndFire("name", NodeVO.self, key: key, \NodeVO.name, options: ListenerOptions()) {
                names.append($0)
            }
            let lists = Recorder<[String]>()
            let listToken = try store.bindAndFire(
                "list", query: RecordQuery<NodeVO>().order(by: "name"), options: ListenerOptions()
            ) { lists.append($0.map(\.name)) }
            defer { nameToken.cancel(); listToken.cancel() }
            #expect(names.all == ["first"])  // the first value, before bindAndFire returned
            #expect(lists.all == [["first"]])
            node.x = 10
            try store.write(origin: nil) { tx in try tx.update(node) }  // the name did not change
            node.name = "renamed"
            try store.write(origin: nil) { tx in try tx.update(node) }
            try insertNodes(store, ["another"])
            // A refetch may reflect later commits too (values coalesce): wait for this one before the next write.
            try waitUntil("the list with both nodes") { lists.all.last == ["another", "renamed"] }
            #expect(try store.write(origin: nil) { try $0.delete(NodeVO.self, key: key) })
            try waitUntil("nil after the delete") { names.count >= 3 }
            try waitUntil("the list after the delete") { lists.all.last == ["another"] }
            #expect(names.all == ["first", "renamed", nil])
            #expect(lists.all.first == ["first"])
        }
    }

    /// `values(of:)` gives the query's current records, then the records again after each commit that changes them,
    /// each with the sequence it reflects; `value(of:key:)` follows one record.
    static func observedValuesFollowTheirQuery<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            try insertNodes(store, ["b"])
            let start = try store.lastSequence()
            let query = RecordQuery<NodeVO>().filter("x", .greaterThanOrEqual, 0.0).order(by: "name")
            let values = try store.values(of: query)
            let received = Recorder<(sequence: Int64, names: [String])>()
            let task = Task {
                for try await element in values { received.append((element.sequence, element.value.map(\.name))) }
            }
            defer { task.cancel() }
            try await waitUntil("the first value") { received.count == 1 }
            let added = try insertNodes(store, ["a"])[0]
            try await waitUntil("the second value") { received.count == 2 }
            #expect(received.all.map(\.sequence) == [start, start + 1])
            #expect(received.all.map(\.names) == [["b"], ["a", "b"]])

            let addedKey = try #require(added.id)
            let one = try store.value(of: NodeVO.self, key: addedKey)
            let followed = Recorder<String?>()
            let oneTask = Task { for try await element in one { followed.append(element.value?.name) } }
            defer { oneTask.cancel() }
            try await waitUntil("the record's first value") { followed.count == 1 }
            #expect(try await store.write(origin: nil) { try $0.delete(NodeVO.self, key: addedKey) })
            try await waitUntil("nil after the delete") { followed.count == 2 }
            #expect(followed.all == ["a", nil])
        }
    }

    /// A slow consumer of `value(of:key:)` and `values(of:)` while a writer renames a node back and forth: no value
    /// comes twice in a row (a waiting value that changes back to the one the consumer has is dropped), and the last
    /// value is the last written.
    static func anObservedValueIsNeverRepeated<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            let node = try insertNodes(store, ["A"])[0]
            let key = try #require(node.id)
            // NodeName holds only the id and the name: a rename back is the same value again (a NodeVO's `updatedAt`
            // would tell the two apart).
            let one = try store.value(of: NodeName.self, key: key)
            let all = try store.values(of: RecordQuery<NodeName>().order(by: "name"))
            let names = Recorder<String?>()
            let lists = Recorder<[String]>()
            let oneTask = Task {
                for try await element in one {
                    names.append(element.value?.name)
                    try await Task.sleep(for: .milliseconds(3))  // slower than the writes: values wait, and coalesce
                }
            }
            let allTask = Task {
                for try await element in all {
                    lists.append(element.value.map(\.name))
                    try await Task.sleep(for: .milliseconds(3))
                }
            }
            defer {
                oneTask.cancel()
                allTask.cancel()
            }
            try await waitUntil("the first values") { names.count == 1 && lists.count == 1 }
            for name in Array(repeating: ["B", "A"], count: 100).joined() + ["Z"] {
                let renamed = NodeVO(id: node.id, name: name, x: node.x, y: node.y)
                try await store.write(origin: nil) { tx in try tx.update(renamed) }
            }
            try await waitUntil("the last write's values") { names.all.last == "Z" && lists.all.last == ["Z"] }
            let repeatedName = zip(names.all, names.all.dropFirst()).first { $0 == $1 }
            let repeatedList = zip(lists.all, lists.all.dropFirst()).first { $0 == $1 }
            #expect(repeatedName == nil, "value(of:key:) handed \(String(describing: repeatedName)) twice: \(names.all)")
            #expect(repeatedList == nil, "values(of:) handed \(String(describing: repeatedList)) twice: \(lists.all)")
        }
    }

    /// `observe(tracking:)`: a read of two tables (a count of nodes, the users' names) delivers its value at once, then
    /// a new one after each commit that changes it; a commit that leaves the value as it was delivers nothing.
    static func aTrackedReadFollowsWhatItReads<E: ConformanceEngine>(_ engine: E) async throws {
        try await withStore(engine) { store in
            let first = try insertNodes(store, ["a"])[0]
            let start = try store.lastSequence()
            let values = try store.observe(tracking: { tx in
                TrackedOverview(
                    nodes: try tx.count(RecordQuery<NodeVO>()), users: try tx.fetchAll(RecordQuery<UserInfo>().order(by: "id")).map(\.name))
            })
            let received = Recorder<(sequence: Int64, value: TrackedOverview)>()
            let task = Task { for try await element in values { received.append((element.sequence, element.value)) } }
            defer { task.cancel() }
            try await waitUntil("the first value") { received.count == 1 }
            try insertNodes(store, ["b"])
            try await waitUntil("the value after a node was added") { received.count == 2 }
            let moved = NodeVO(id: first.id, name: first.name, x: 50, y: first.y)
            try await store.write(origin: nil) { try $0.update(moved) }  // the count stays 2: nothing to deliver
            _ = try await store.write(origin: nil) { try $0.upsert(UserInfo(id: "me", name: "Ada", hairColor: "brown")) }
            try await waitUntil("the value after a user was added") { received.count == 3 }
            #expect(received.all.map(\.sequence) == [start, start + 1, start + 3])
            #expect(
                received.all.map(\.value) == [
                    TrackedOverview(nodes: 1, users: []), TrackedOverview(nodes: 2, users: []), TrackedOverview(nodes: 2, users: ["Ada"]),
                ])
        }
    }

    /// `commits(after:)` and `commits(following:)` page through the change log: every commit once, in order, with its
    /// origin and its change; nothing after the last.
    static func theChangeLogPagesThroughEveryCommit<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let start = try store.lastSequence()
            for index in 1...5 { try insertNodes(store, ["n\(index)"], origin: "o\(index)") }
            var seen: [Commit] = []
            var page = try store.commits(after: start, limit: 2)
            while let last = page.last {
                #expect(page.count <= 2)
                seen += page
                page = try store.commits(following: last, limit: 2)
            }
            #expect(seen.map(\.sequence) == Array((start + 1)...(start + 5)))
            #expect(seen.map(\.origin) == (1...5).map { "o\($0)" })
            #expect(seen.allSatisfy { $0.changes.count == 1 && $0.changes.first?.table == "nodes" })
            #expect(try store.commits(after: start + 5).isEmpty)
            #expect(try store.commits(after: start + 3).map(\.sequence) == [start + 4, start + 5])
        }
    }

    /// `LiveQuery` and `LiveRecord`, made through the store protocol: their value at once, then the store's commits on
    /// the main actor (their default); a model made on a closed store starts empty with the error.
    @MainActor static func liveModelsFollowTheStoreAndEndWithIt<E: ConformanceEngine>(_ engine: E) async throws {
        let store = try engine.open()
        defer { store.close() }
        let id = try #require(try store.repository(NodeVO.self, origin: nil).insert(NodeVO(name: "b", x: 200, y: 0)).id)
        let start = try store.lastSequence()
        #expect(store.unnamedListenerCount == 0)
        let big = LiveQuery(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name"), in: store)
        let record = LiveRecord(NodeVO.self, key: id, in: store)
        #expect(store.unnamedListenerCount == 2, "each model holds one unnamed listener")
        #expect(store.listenerNames.isEmpty)
        #expect(big.records.map(\.name) == ["b"] && big.sequence == start && big.isObserving && big.error == nil)
        #expect(record.record?.name == "b" && record.sequence == start)

        let renamed = try await store.writeReturningCommit(origin: nil) { tx in
            _ = try tx.insert(NodeVO(name: "a", x: 300, y: 0))
            _ = try tx.insert(NodeVO(name: "small", x: 5, y: 0))
            guard var node = try tx.fetch(NodeVO.self, key: id) else { throw StoreError(.notFound, "node \(id)") }
            node.name = "b2"
            try tx.update(node)
        }
        let renamedAt = try #require(renamed.sequence)
        try await waitUntil("the models at the rename") { big.sequence == renamedAt && record.sequence == renamedAt }
        #expect(big.records.map(\.name) == ["a", "b2"])
        #expect(record.record?.name == "b2")

        #expect(try store.repository(NodeVO.self, origin: nil).delete(key: id))
        let deleted = try store.lastSequence()
        try await waitUntil("the models at the delete") { big.sequence == deleted && record.sequence == deleted }
        #expect(record.record == nil)
        #expect(big.records.map(\.name) == ["a"])

        store.close()
        try await waitUntil("the models to end with the store") { !big.isObserving && !record.isObserving }
        #expect(store.unnamedListenerCount == 0, "a closed store holds no listener")
        #expect(big.error == nil && record.error == nil)
        #expect(big.records.map(\.name) == ["a"], "the last records stay")
        let lateQuery = LiveQuery(RecordQuery<NodeVO>(), in: store)
        #expect(lateQuery.records.isEmpty && lateQuery.sequence == nil && !lateQuery.isObserving)
        #expect((lateQuery.error as? StoreError)?.code == .transactionMisuse, "\(String(describing: lateQuery.error))")
        let late = LiveRecord(NodeVO.self, key: id, in: store)
        #expect(late.record == nil && late.sequence == nil && !late.isObserving)
        #expect((late.error as? StoreError)?.code == .transactionMisuse, "\(String(describing: late.error))")
    }
}

/// What `aTrackedReadFollowsWhatItReads` reads: a count of one table and a column of another.
struct TrackedOverview: Equatable, Sendable {
    var nodes: Int
    var users: [String]
}
