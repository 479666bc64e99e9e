#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import TestScheduling
import Testing

/// `LiveQuery` and `LiveRecord` on a PostgreSQL store (the core's models, as on SQLite): their value at once, then
/// every writer's commits on the main actor (their default), and their end when the store closes.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresLiveModelTests {
    @MainActor @Test func liveModelsHaveTheirValueAtOnceThenFollowEveryWriter() async throws {
        try await ObservedServer.withAsync { server in
            let store = try server.openStore()
            defer { store.close() }
            let nodes = store.repository(NodeVO.self)
            let id = try #require(try nodes.insert(NodeVO(name: "b", x: 200, y: 0)).id)
            let big = LiveQuery(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0).order(by: "name"), in: store)
            let names = LiveQuery(RecordQuery<NodeName>().order(by: "name"), in: store)
            let record = LiveRecord(NodeVO.self, key: id, in: store)
            #expect(big.records.map(\.name) == ["b"] && big.sequence == 1 && big.isObserving && big.error == nil)
            #expect(names.records.map(\.name) == ["b"] && names.sequence == 1)
            #expect(record.record?.name == "b" && record.sequence == 1)

            // Another program's commit (psql), through the capture triggers.
            let fromPsql = try #require(
                try server.commit("INSERT INTO nodes (name, x, y) VALUES ('a', 300, 0), ('small', 5, 0)",
                                  "UPDATE nodes SET name = 'b2' WHERE id = \(id)"))
            try await waitUntil("the models at psql's commit") {
                big.sequence == fromPsql && names.sequence == fromPsql && record.sequence == fromPsql
            }
            #expect(big.records.map(\.name) == ["a", "b2"])
            #expect(names.records.map(\.name) == ["a", "b2", "small"])
            #expect(record.record?.name == "b2")

            // The store's own delete: the record is gone, the query loses it.
            #expect(try nodes.delete(key: id))
            let deleted = try store.lastSequence()
            try await waitUntil("the models at the delete") { big.sequence == deleted && record.sequence == deleted }
            #expect(record.record == nil)
            #expect(big.records.map(\.name) == ["a"])

            store.close()
            try await waitUntil("the models to end with the store") { !big.isObserving && !names.isObserving && !record.isObserving }
            #expect(big.error == nil && record.error == nil)
            #expect(big.records.map(\.name) == ["a"], "the last records stay")
        }
    }

    @MainActor @Test func aModelOnAClosedStoreStartsEmptyWithItsError() async throws {
        try await ObservedServer.withAsync { server in
            let store = try server.openStore()
            try store.repository(NodeVO.self).insert(NodeVO(name: "kept", x: 200, y: 0))
            store.close()
            let model = LiveQuery(RecordQuery<NodeVO>(), in: store)
            #expect(model.records.isEmpty && model.sequence == nil && !model.isObserving)
            #expect((model.error as? StoreError)?.message.contains("closed") == true, "\(String(describing: model.error))")
            let record = LiveRecord(NodeVO.self, key: 1, in: store)
            #expect(record.record == nil && !record.isObserving && record.error != nil)
        }
    }
}
#endif
