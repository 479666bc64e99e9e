#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import TestScheduling
import Testing

/// `LiveQuery` and `LiveRecord` on a PostgreSQL store follow the commits of another program (psql) as well as the
/// store's own; what both engines share (the first value, the store's commits, the end) is the conformance case
/// `liveModelsFollowTheStoreAndEndWithIt`.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresLiveModelTests {
    @MainActor @Test func liveModelsFollowAnotherProgramsCommit() async throws {
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
        }
    }
}
#endif
