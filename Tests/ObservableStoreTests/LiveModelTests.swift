import Foundation
import Observation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// An actor other than the main one, for models that change on it.
private actor ModelActor {
    /// Runs `body` on this actor (the models' getters check that they are read on their actor).
    func run<T: Sendable>(_ body: @Sendable () -> T) -> T { body() }
}

/// `LiveQuery` and `LiveRecord` on real files: they have their value at once, follow commits of this process
/// and of others on the actor chosen, are seen by `withObservationTracking` and `Observations`, end on a failed
/// read or a closed store, and remove their listener when released.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct LiveModelTests {
    private static let bigX = RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name")

    /// Polls `condition` on `actor` every millisecond until it holds; throws ``TimedOut`` after `timeout` seconds.
    private func waitOn(
        _ actor: ModelActor, _ what: String, timeout: Double = defaultWaitSeconds,
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable () -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !(await actor.run(condition)) {
            guard Date() < deadline else { throw TimedOut(what, seconds: timeout, sourceLocation: sourceLocation) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func aLiveQueryHasItsRecordsAtOnceThenFollowsCommitsOnItsActor() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "b", x: 200, y: 0))
            let actor = ModelActor()
            let model = LiveQuery(Self.bigX, in: store, on: actor)
            #expect(await actor.run { model.records.map(\.name) } == ["b"])
            #expect(await actor.run { model.sequence } == 1)
            #expect(await actor.run { model.isObserving && model.error == nil })
            try nodes.insert(NodeVO(name: "a", x: 300, y: 0))
            try await waitOn(actor, "the new record") { model.records.map(\.name) == ["a", "b"] }
            #expect(await actor.run { model.sequence } == 2)
            try nodes.insert(NodeVO(name: "small", x: 5, y: 0))  // outside the filter
            try nodes.insert(NodeVO(name: "c", x: 150, y: 0))
            try await waitOn(actor, "the third record") { model.records.map(\.name) == ["a", "b", "c"] }
            #expect(await actor.run { model.sequence } == 4)
        }
    }

    @Test func aRecordTypeThatIsNotEquatableIsComparedByItsColumns() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            var node = try nodes.insert(NodeVO(name: "a", x: 0, y: 0))
            let actor = ModelActor()
            let model = LiveQuery(RecordQuery<NodeName>().order(by: "name"), in: store, on: actor)
            #expect(await actor.run { model.records.map(\.name) } == ["a"])
            node.name = "b"
            try nodes.update(node)
            try await waitOn(actor, "the renamed node") { model.records.map(\.name) == ["b"] }
            #expect(await actor.run { model.sequence } == 2)
        }
    }

    @MainActor @Test func theMainActorIsTheDefault() async throws {
        try await withTemporaryStore { store, _ in
            let model = LiveQuery(Self.bigX, in: store)
            #expect(ObjectIdentifier(model.actor) == ObjectIdentifier(MainActor.shared))
            let record = LiveRecord(UserInfo.self, key: "me", in: store)
            #expect(ObjectIdentifier(record.actor) == ObjectIdentifier(MainActor.shared))
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))
            try await waitUntil("the record on the main actor") { record.record?.name == "Ada" }
        }
    }

    @MainActor @Test func withObservationTrackingSeesAChangeOnTheMainActor() async throws {
        try await withTemporaryStore { store, _ in
            let model = LiveQuery(Self.bigX, in: store)
            let changed = Locked(false)
            withObservationTracking { _ = model.records } onChange: { changed.value = true }
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "small", x: 5, y: 0))  // the result stays empty: no change
            try await Task.sleep(for: .milliseconds(100))  // room for a wrong change to be reported
            #expect(!changed.value)
            try nodes.insert(NodeVO(name: "big", x: 500, y: 0))
            try await waitUntil("the change to be reported") { changed.value }
            try await waitUntil("the new records") { model.records.map(\.name) == ["big"] }
            #expect(model.sequence == 2)
        }
    }

    @MainActor @Test func observationsSeeTheRecordsAsTheyChange() async throws {
        try await withTemporaryStore { store, _ in
            let model = LiveQuery(Self.bigX, in: store)
            let seen = Recorder<[String]>()
            let watcher = Task { @MainActor in
                for await names in Observations({ model.records.map(\.name) }) {
                    seen.append(names)
                    if names.count == 3 { return }
                }
            }
            let nodes = store.repository(NodeVO.self)
            try await waitUntil("the first value") { seen.count == 1 }
            for name in ["n1", "n2", "n3"] {
                try nodes.insert(NodeVO(name: name, x: 500, y: 0))
                try await waitUntil("\(name) to be seen") { seen.all.last?.last == name }
            }
            await watcher.value  // it returns after the third name, seen above
            // Observations coalesces, so only the first and last are certain; each seen value was a real one.
            #expect(seen.all.first == [])
            #expect(seen.all.last == ["n1", "n2", "n3"])
            #expect(seen.all.allSatisfy { [[], ["n1"], ["n1", "n2"], ["n1", "n2", "n3"]].contains($0) })
        }
    }

    @Test func aLiveRecordFollowsItsInsertUpdateAndDelete() async throws {
        try await withTemporaryStore { store, _ in
            let actor = ModelActor()
            let model = LiveRecord(UserInfo.self, key: "me", in: store, on: actor)
            #expect(await actor.run { model.record == nil && model.sequence == 0 && model.isObserving })
            let users = store.repository(UserInfo.self)
            try users.insert(UserInfo(id: "me", name: "Ada"))
            try await waitOn(actor, "the insert") { model.record?.name == "Ada" }
            try users.insert(UserInfo(id: "someone-else", name: "Bob"))  // another key
            try users.update(UserInfo(id: "me", name: "Grace"))
            try await waitOn(actor, "the update") { model.record?.name == "Grace" }
            #expect(await actor.run { model.sequence } == 3)
            _ = try users.delete(UserInfo(id: "me", name: "Grace"))
            try await waitOn(actor, "the delete") { model.record == nil && model.sequence == 4 }
        }
    }

    @Test func anotherProcesssCommitsArrive() async throws {
        try await withTemporaryStore { store, path in
            let actor = ModelActor()
            let query = LiveQuery(Self.bigX, in: store, on: actor)
            let record = LiveRecord(NodeVO.self, key: 1, in: store, on: actor)
            let node = #"{"name":"from-storectl","x":500,"y":0}"#
            let inserted = try run("storectl", ["--db", path, "insert", "nodes", node])
            #expect(inserted.status == 0, "\(inserted.stderr)")
            try await waitOn(actor, "storectl's insert in the query") { query.records.map(\.name) == ["from-storectl"] }
            try await waitOn(actor, "storectl's insert by key") { record.record?.name == "from-storectl" }
            // Another SQLiteStore on the same file: a connection of its own, its commits come through the change feed.
            let other = try SQLiteStore(path: path)
            try other.repository(NodeVO.self).update(NodeVO(id: 1, name: "renamed", x: 500, y: 0))
            other.close()
            try await waitOn(actor, "the other store's update") {
                query.records.map(\.name) == ["renamed"] && record.record?.name == "renamed"
            }
        }
    }

    @Test func releasingAModelRemovesItsListener() async throws {
        try await withTemporaryStore { store, _ in
            let actor = ModelActor()
            var query: LiveQuery<NodeVO>? = LiveQuery(Self.bigX, in: store, on: actor)
            var record: LiveRecord<UserInfo>? = LiveRecord(UserInfo.self, key: "me", in: store, on: actor)
            weak let releasedQuery = query
            weak let releasedRecord = record
            #expect(store.unnamedListenerCount == 2)
            try store.repository(NodeVO.self).insert(NodeVO(name: "big", x: 500, y: 0))
            if let model = query {  // the model is alive only inside this block
                try await waitOn(actor, "the model to update") { model.records.count == 1 }
            }
            query = nil
            record = nil
            try await waitUntil("both listeners to be removed") { store.unnamedListenerCount == 0 }
            #expect(releasedQuery == nil && releasedRecord == nil)  // the store keeps neither alive
            try store.repository(NodeVO.self).insert(NodeVO(name: "after", x: 500, y: 0))  // nobody left to tell
            #expect(store.unnamedListenerCount == 0)
        }
    }

    @Test func closingTheStoreEndsTheModels() async throws {
        try await withTemporaryStore { store, _ in
            let actor = ModelActor()
            let query = LiveQuery(Self.bigX, in: store, on: actor)
            let record = LiveRecord(UserInfo.self, key: "me", in: store, on: actor)
            store.close()
            try await waitOn(actor, "both models to end") { !query.isObserving && !record.isObserving }
            #expect(await actor.run { query.error == nil && record.error == nil })
            #expect(store.unnamedListenerCount == 0)
        }
    }

    @Test func aFailedReadSetsTheErrorAndKeepsTheLastValue() async throws {
        try await withTemporaryStore { store, _ in
            try store.repository(NodeVO.self).insert(NodeVO(name: "big", x: 500, y: 0))
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))
            let actor = ModelActor()
            let query = LiveQuery(Self.bigX, in: store, on: actor)
            let record = LiveRecord(UserInfo.self, key: "me", in: store, on: actor)
            // A schema change makes both read again, and the records no longer decode.
            try await store.write { tx in
                try tx.execute("ALTER TABLE nodes RENAME COLUMN name TO title")
                try tx.execute("ALTER TABLE user_info RENAME COLUMN name TO full_name")
            }
            try await waitOn(actor, "both reads to fail") { query.error != nil && record.error != nil }
            #expect(await actor.run { !query.isObserving && !record.isObserving })
            #expect(await actor.run { query.records.map(\.name) == ["big"] && record.record?.name == "Ada" })
            try await waitUntil("both listeners to be removed") { store.unnamedListenerCount == 0 }
        }
    }
}
