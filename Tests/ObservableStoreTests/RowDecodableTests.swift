import Foundation
import StoreTestSupport
import Testing

@testable import ObservableStore

/// The fast decoding path (``RowDecodable``) reads exactly what `Decodable` reads, and refuses what it refuses.
@Suite struct RowDecodableTests {
    @Test func shippedRecordsReadTheSameThroughBothPaths() throws {
        try withTemporaryStore { store, _ in
            let created = Date(timeIntervalSince1970: 1_790_000_000.123)
            try store.write { tx in
                try tx.insert(NodeVO(name: "ünïcode ✓", x: -1.5, y: 1e300, color: "#000000", width: 0, height: 7.25, createdAt: created))
                try tx.insert(NodeVO(id: Int64.max, name: "", x: 0, y: 0, createdAt: created, updatedAt: created.addingTimeInterval(1)))
                try tx.insert(UserInfo(id: "a", name: "Ada", hairColor: "red", createdAt: created))
                try tx.insert(UserInfo(id: "b", name: "Bob", hairColor: nil, createdAt: created))
            }
            let (fastNodes, fastUsers, rows, userRows) = try store.read { tx in
                (
                    try tx.fetchAll(Query<NodeVO>().order(by: "id")), try tx.fetchAll(Query<UserInfo>().order(by: "id")),
                    try tx.fetchRows("SELECT * FROM nodes ORDER BY id"), try tx.fetchRows("SELECT * FROM user_info ORDER BY id")
                )
            }
            #expect(fastNodes == (try rows.map { try $0.decode(NodeVO.self) }))  // Row.decode is the Decodable path
            #expect(fastUsers == (try userRows.map { try $0.decode(UserInfo.self) }))
            #expect(fastNodes.map(\.id) == [1, Int64.max])
            #expect(fastNodes[0].createdAt == created && fastNodes[1].updatedAt == created.addingTimeInterval(1))
            #expect(fastUsers.map(\.hairColor) == ["red", nil])
        }
    }

    /// A conforming type of the application's: wrong storage classes and missing columns are refused, naming
    /// the column, as `Decodable` refuses them.
    struct Loose: Record, RowDecodable, Equatable {
        static let tableName = "loose"
        typealias Key = Int64
        var id: Int64?
        var amount: Double
        var label: String?

        init(id: Int64?, amount: Double, label: String?) {
            self.id = id
            self.amount = amount
            self.label = label
        }

        init(row: RowReader) throws {
            id = try row.decodeIfPresent(Int64.self, "id")
            amount = try row.decode(Double.self, "amount")
            label = try row.decodeIfPresent(String.self, "label")
        }
    }

    @Test func wrongValuesAreRefusedNamingTheColumn() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in
                try tx.execute("CREATE TABLE loose (id INTEGER PRIMARY KEY, amount ANY, label ANY)")
                try tx.execute("INSERT INTO loose VALUES (1, 2.5, 'fine'), (2, 3, NULL)")
            }
            #expect(try store.read { try $0.fetchAll(Query<Loose>()) }.map(\.amount) == [2.5, 3])

            try store.write { try $0.execute("INSERT INTO loose VALUES (3, 'not a number', NULL)") }
            let text = #expect(throws: StoreError.self) { try store.read { try $0.fetchAll(Query<Loose>()) } }
            #expect(text?.code == .invalidInput)
            #expect(text?.message.contains("column amount: expected REAL, found TEXT") == true, "\(text?.message ?? "")")

            try store.write { try $0.execute("UPDATE loose SET amount = 1, label = x'00' WHERE id = 3") }
            let blob = #expect(throws: StoreError.self) { try store.read { try $0.fetchAll(Query<Loose>()) } }
            #expect(blob?.message.contains("column label: expected TEXT, found BLOB") == true, "\(blob?.message ?? "")")

            let missing = #expect(throws: StoreError.self) {
                try store.read { try $0.fetchAll(Loose.self, sql: "SELECT id, label FROM loose") }
            }
            #expect(missing?.message.contains("amount") == true, "\(missing?.message ?? "")")
        }
    }
}


/// A record whose columns vary: no `id` when it has none, a `note` only when it has one.
private struct Memo: Record, RowEncodable, Equatable {
    typealias Key = Int64
    static let tableName = "memos"
    var id: Int64?
    var title: String
    var body: String
    var note: String?

    mutating func didInsert(rowID: Int64) { id = rowID }

    func encode(to row: inout RowWriter) {
        if let id { row.encode(id, "id") }
        row.encode(title, "title")
        row.encode(body, "body")
        if let note { row.encode(note, "note") }
    }
}

/// The fast encoding path (``RowEncodable``) writes exactly what `Encodable` writes.
@Suite struct RowEncodableTests {
    @Test func shippedRecordsWriteTheSameColumnsThroughBothPaths() throws {
        let when = Date(timeIntervalSince1970: 1_790_000_000.123)
        let nodes = [
            NodeVO(name: "ünïcode ✓", x: -1.5, y: 1e300, color: "#000000", width: 0, height: 7.25, createdAt: when),
            NodeVO(id: Int64.max, name: "", x: 0, y: 0, createdAt: when, updatedAt: when.addingTimeInterval(1)),
        ]
        for node in nodes {
            let fast = try RowEncoder.encode(node)
            let coded = try RowEncoder.encodeWithCoding(node)
            #expect(fast.columns == coded.columns && fast.values == coded.values)
        }
        for user in [UserInfo(id: "a", name: "Ada", hairColor: "red", createdAt: when), UserInfo(id: "b", name: "Bob")] {
            let fast = try RowEncoder.encode(user)
            let coded = try RowEncoder.encodeWithCoding(user)
            #expect(fast.columns == coded.columns && fast.values == coded.values)
        }
    }

    /// After a type's first insert, its records are bound straight into that insert statement; a record
    /// writing other columns (one more, one fewer, another order) is inserted the general way, and rightly.
    @Test func recordsWritingOtherColumnsThanTheLastInsertAreStoredRightly() throws {
        try withTemporaryStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE memos (id INTEGER PRIMARY KEY, title TEXT, body TEXT, note TEXT)") }
            let memos = [
                Memo(title: "a", body: "first", note: nil), Memo(title: "b", body: "second", note: nil),
                Memo(id: 50, title: "c", body: "with id", note: nil), Memo(title: "d", body: "after", note: "noted"),
                Memo(title: "e", body: "noted again", note: "again"), Memo(title: "f", body: "plain", note: nil),
                Memo(id: 60, title: "g", body: "id and note", note: "both"),
            ]
            let inserted = try store.write { tx in try memos.map { try tx.insert($0) } }
            #expect(inserted.map(\.id) == [1, 2, 50, 51, 52, 53, 60])
            let stored = try store.read { try $0.fetchAll(Query<Memo>().order(by: "id")) }
            #expect(stored == inserted)
        }
    }

    /// The insert statement a record type used last is shared by the process's stores: one whose table
    /// lacks a column of it inserts the general way, not with an error.
    @Test func anInsertStatementMadeForAnotherStoresTableIsNotForcedOnThisOne() throws {
        try withTemporaryStore { withNote, _ in
            try withTemporaryStore { withoutNote, _ in
                try withNote.write { try $0.execute("CREATE TABLE memos (id INTEGER PRIMARY KEY, title TEXT, body TEXT, note TEXT)") }
                try withoutNote.write { try $0.execute("CREATE TABLE memos (id INTEGER PRIMARY KEY, title TEXT, body TEXT)") }
                try withNote.write { try $0.insert(Memo(title: "a", body: "noted", note: "n")) }
                let plain = try withoutNote.write { try $0.insert(Memo(title: "b", body: "plain", note: nil)) }
                #expect(try withoutNote.read { try $0.fetchAll(Query<Memo>()) } == [plain])
            }
        }
    }

    /// Bound text is copied into the statement's memory, which grows in the middle of a record and is
    /// limited per record: long, growing, empty and over-the-limit text is all stored whole.
    @Test func textOfEverySizeIsStoredWholeWhenBoundStraightIntoTheStatement() throws {
        try withTemporaryStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE memos (id INTEGER PRIMARY KEY, title TEXT, body TEXT, note TEXT)") }
            func text(_ count: Int, _ letter: Character) -> String { String(repeating: letter, count: count) }
            let memos = [
                Memo(title: "small", body: "x", note: "y"),
                Memo(title: text(300, "a"), body: text(5_000, "b"), note: text(12_000, "c")),  // grows twice
                Memo(title: "", body: text(20_000, "d"), note: ""),  // over largeValueBytes: SQLite copies it
                Memo(title: text(16_000, "e"), body: text(16_000, "f"), note: text(16_000, "g")),
                Memo(title: text(16_000, "h"), body: text(16_000, "i"), note: text(16_000, "j")),
                Memo(title: "ü✓", body: text(40, "k"), note: "small again"),
            ]
            let inserted = try store.write { tx in try memos.map { try tx.insert($0) } }
            let stored = try store.read { try $0.fetchAll(Query<Memo>().order(by: "id")) }
            #expect(stored == inserted)
            #expect(stored.map(\.body.count) == [1, 5_000, 20_000, 16_000, 16_000, 40])
        }
    }
}
