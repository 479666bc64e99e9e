import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// Typed columns (`.x`), key-path columns (`\.x`) and typed keys give what the string forms give, on a real store.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct TypedColumnsTests {
    /// Twenty nodes: x = 0…19, names in reverse order, every third one red.
    private func fill(_ store: SQLiteStore) throws {
        try store.write { tx in
            for index in 0..<20 {
                let color = index % 3 == 0 ? "#FF0000" : NodeVO.defaultColor
                try tx.insert(NodeVO(name: "n\(99 - index)", x: Double(index), y: Double(index % 4), color: color))
            }
        }
    }

    @Test func typedFiltersAndOrdersSelectWhatTheStringFormsSelect() throws {
        try withTemporaryStore { store, _ in
            try fill(store)
            let nodes = store.repository(NodeVO.self)
            let pairs: [(typed: RecordQuery<NodeVO>, keyPath: RecordQuery<NodeVO>, string: RecordQuery<NodeVO>)] = [
                (
                    RecordQuery().filter(.x, .greaterThan, 12).order(by: .name),
                    RecordQuery().filter(\.x, .greaterThan, 12).order(by: \.name),
                    RecordQuery().filter("x", .greaterThan, 12).order(by: "name")
                ),
                (
                    RecordQuery().filter(.color, equals: "#FF0000").order(by: .x, descending: true).limit(3),
                    RecordQuery().filter(\.color, equals: "#FF0000").order(by: \.x, descending: true).limit(3),
                    RecordQuery().filter("color", equals: "#FF0000").order(by: "x", descending: true).limit(3)
                ),
                (
                    RecordQuery().filter(.y, in: [1.0, 3.0]).filter(.x, .lessThan, 10).order(by: .y).order(by: .createdAt),
                    RecordQuery().filter(\.y, in: [1, 3]).filter(\.x, .lessThan, 10).order(by: \.y).order(by: \.createdAt),
                    RecordQuery().filter("y", in: [1.0, 3.0]).filter("x", .lessThan, 10).order(by: "y").order(by: "created_at")
                ),
                (
                    RecordQuery().filter(.name, .like, "n9%").filter(.id, in: [Int64]()),
                    RecordQuery().filter(\.name, .like, "n9%").filter(\.id, in: []),
                    RecordQuery().filter("name", .like, "n9%").filter("id", in: [Int64]())
                ),
            ]
            for (typed, keyPath, string) in pairs {
                let expected = try nodes.fetchAll(string)
                #expect(try nodes.fetchAll(typed) == expected)
                #expect(try nodes.fetchAll(keyPath) == expected)
                #expect(try nodes.count(typed) == expected.count)
            }
            #expect(try nodes.fetchAll(RecordQuery().filter(.x, .greaterThan, 12)).count == 7)
            #expect(try nodes.fetchAll(RecordQuery().filter(\.x, .greaterThan, 12).order(by: \.name)).map(\.name).first == "n80")
            #expect(try nodes.deleteAll(RecordQuery().filter(\.color, equals: "#FF0000")) == 7)
            #expect(try nodes.count() == 13)
        }
    }

    @Test func nullableKeyPathColumnsMatchNull() throws {
        try withTemporaryStore { store, _ in
            let users = store.repository(UserInfo.self)
            try users.insertAll([UserInfo(id: "a", name: "Ada", hairColor: "brown"), UserInfo(id: "b", name: "Bob")])
            #expect(try users.fetchAll(RecordQuery().filter(\.hairColor, equals: nil)).map(\.id) == ["b"])
            #expect(try users.fetchAll(RecordQuery().filter(.hairColor, equals: String?.none)).map(\.id) == ["b"])
            #expect(try users.fetchAll(RecordQuery().filter(\.hairColor, equals: "brown")).map(\.id) == ["a"])
        }
    }

    @Test func typedKeysFetchAndDeleteAsTheDynamicKeysDo() throws {
        try withTemporaryStore { store, _ in
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "A", x: 1, y: 2))
            let id = try #require(node.id)
            try store.write { tx throws in
                #expect(try tx.fetch(NodeVO.self, key: id) == node)
                #expect(try tx.fetch(NodeVO.self, key: .integer(id)) == node)
                #expect(try tx.fetch(NodeVO.self, key: id + 1) == nil)
                #expect(try tx.fetch(UserInfo.self, key: "nobody") == nil)
                #expect(try !tx.delete(NodeVO.self, key: id + 1))
                #expect(try tx.delete(NodeVO.self, key: id))
                #expect(try !tx.delete(NodeVO.self, key: .integer(id)))
            }
        }
    }

    @Test func typedUpdateColumnsWriteWhatTheNamesWrite() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            var node = try nodes.insert(NodeVO(name: "A", x: 1, y: 2))
            let stored = node
            node.x = 50
            node.name = "not written"
            try nodes.update(node, columns: [.x])
            var expected = stored
            expected.x = 50
            #expect(try nodes.fetch(node.id!) == expected)
            node.y = 7
            try store.write { try $0.update(node, columns: [NodeVO.Columns.y, .x]) }
            expected.y = 7
            #expect(try nodes.fetch(node.id!) == expected)
            let refused = #expect(throws: StoreError.self) { try nodes.update(node, columns: [.id]) }
            #expect(refused?.code == .invalidInput)
            #expect(refused?.message == #"nodes: cannot update column "id": it is the primary key"#)
            let empty = #expect(throws: StoreError.self) { try nodes.update(node, columns: [NodeVO.Columns]()) }
            #expect(empty?.code == .invalidInput)
        }
    }

    @Test func aTypedChangeFilterMatchesItsTableKeysAndColumns() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            var watched = try nodes.insert(NodeVO(name: "watched", x: 0, y: 0))
            var other = try nodes.insert(NodeVO(name: "other", x: 0, y: 0))
            let filter = ChangeFilter(NodeVO.self, keys: [watched.id!], columns: [.x, .y])
            #expect(filter.tables == ["nodes"])
            #expect(filter.keys == [.integer(watched.id!)])
            #expect(filter.columns == ["x", "y"])
            let (recorder, token) = store.record("moves", filter: filter)
            watched.name = "renamed"
            try nodes.update(watched, columns: [.name])  // not a move
            other.x = 5
            try nodes.update(other, columns: [.x])  // another node
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))  // another table
            watched.x = 9
            try nodes.update(watched, columns: [.x])
            #expect(recorder.wait(for: 1))
            #expect(recorder.changes.map(\.summary) == ["update nodes \(watched.id!)"])
            #expect(recorder.changes.first?.changedColumns == ["x"])
            withExtendedLifetime(token) {}
        }
    }

    @Test func anIdentifiableRecordNeedsNoKeyDeclaration() throws {
        try withTemporaryStore(configuration: Tag.configuration) { store, _ in
            let tags = store.repository(Tag.self)
            let tag = try tags.insert(Tag(id: "swift", title: "Swift", uses: 3))
            #expect(try tags.fetch("swift") == tag)
            #expect(try store.read { try $0.fetch(Tag.self, key: "swift") } == tag)
            #expect(try tags.fetchAll(RecordQuery().filter(.uses, .greaterThanOrEqual, 3)) == [tag])
            var changed = tag
            changed.uses = 4
            try tags.update(changed, columns: [.uses])
            #expect(try tags.fetch("swift")?.uses == 4)
            #expect(try tags.delete(key: "swift"))
            #expect(try tags.fetch("swift") == nil)
        }
    }
}

/// An `Identifiable` record: its `Key` is its `ID`, found without a `typealias Key`.
private struct Tag: Record, Identifiable, Equatable {
    static let tableName = "tags"
    typealias Columns = CodingKeys

    var id: String
    var title: String
    var uses: Int

    enum CodingKeys: String, CodingKey { case id, title, uses }

    static var configuration: SQLiteStoreConfiguration {
        var configuration = SQLiteStoreConfiguration()
        let sql = "CREATE TABLE tags (id TEXT PRIMARY KEY, title TEXT NOT NULL, uses INTEGER NOT NULL)"
        configuration.migrationSets = [try! MigrationSet(name: "tags", migrations: [Migration(version: 1, name: "create_tags", sql: sql)])]
        return configuration
    }
}
