import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Kept statements see columns added and dropped after they were prepared.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ReprepareTests {
    @Test func aCachedSelectStarSeesColumnsAddedLater() throws {
        try withTemporaryStore { store, _ throws in
            struct Wide: Decodable { var name: String; var extra: Int? }
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            let before = try store.read { try $0.fetchAll(Wide.self, sql: "SELECT * FROM nodes") }
            #expect(before.first?.extra == nil)
            try store.write { try $0.execute("ALTER TABLE nodes ADD COLUMN extra INTEGER DEFAULT 7") }
            let after = try store.read { try $0.fetchAll(Wide.self, sql: "SELECT * FROM nodes") }
            #expect(after.first?.extra == 7)
        }
    }

    /// A record selecting all columns, fetched by key through the statement each connection keeps for that.
    struct WideNode: Record {
        static let tableName = "nodes"
        typealias Key = Int64
        var id: Int64?
        var name: String
        var extra: Int?
    }

    @Test func aKeptFetchByKeySeesColumnsAddedAndDroppedLater() throws {
        try withTemporaryStore { store, _ throws in
            let id = try #require(try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0)).id)
            let wide = store.repository(WideNode.self)
            #expect(try wide.fetch(id)?.extra == nil)
            #expect(try store.write { try $0.fetch(WideNode.self, key: id) }?.extra == nil)
            try store.write { try $0.execute("ALTER TABLE nodes ADD COLUMN extra INTEGER DEFAULT 7") }
            #expect(try wide.fetch(id)?.extra == 7)
            #expect(try store.write { try $0.fetch(WideNode.self, key: id) }?.extra == 7)
            try store.write { try $0.execute("ALTER TABLE nodes DROP COLUMN name") }
            let error = #expect(throws: StoreError.self) { try wide.fetch(id) }
            #expect(error?.code == .invalidInput)
            #expect(error?.message.contains("name") == true, "\(error?.message ?? "")")
            #expect(try wide.fetch(id + 1) == nil)
        }
    }
}
