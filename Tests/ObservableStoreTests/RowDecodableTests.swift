import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// The fast decoding path (``RowDecodable``) reads exactly what `Decodable` reads, and refuses what it refuses.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct RowDecodableTests {
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
                    try tx.fetchAll(RecordQuery<NodeVO>().order(by: "id")), try tx.fetchAll(RecordQuery<UserInfo>().order(by: "id")),
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
            #expect(try store.read { try $0.fetchAll(RecordQuery<Loose>()) }.map(\.amount) == [2.5, 3])

            try store.write { try $0.execute("INSERT INTO loose VALUES (3, 'not a number', NULL)") }
            let text = #expect(throws: StoreError.self) { try store.read { try $0.fetchAll(RecordQuery<Loose>()) } }
            #expect(text?.code == .invalidInput)
            #expect(text?.message.contains("column amount: expected REAL, found TEXT") == true, "\(text?.message ?? "")")

            try store.write { try $0.execute("UPDATE loose SET amount = 1, label = x'00' WHERE id = 3") }
            let blob = #expect(throws: StoreError.self) { try store.read { try $0.fetchAll(RecordQuery<Loose>()) } }
            #expect(blob?.message.contains("column label: expected TEXT, found BLOB") == true, "\(blob?.message ?? "")")

            let missing = #expect(throws: StoreError.self) {
                try store.read { try $0.fetchAll(Loose.self, sql: "SELECT id, label FROM loose") }
            }
            #expect(missing?.message.contains("amount") == true, "\(missing?.message ?? "")")
        }
    }

    /// A conforming type with a date, read from columns that take any storage class.
    struct Reading: Record, RowDecodable, Equatable {
        static let tableName = "readings"
        typealias Key = Int64
        var id: Int64?
        var amount: Double
        var label: String?
        var takenAt: Date

        enum CodingKeys: String, CodingKey {
            case id, amount, label
            case takenAt = "taken_at"
        }

        init(id: Int64?, amount: Double, label: String?, takenAt: Date) {
            self.id = id
            self.amount = amount
            self.label = label
            self.takenAt = takenAt
        }

        init(row: RowReader) throws {
            id = try row.decodeIfPresent(Int64.self, "id")
            amount = try row.decode(Double.self, "amount")
            label = try row.decodeIfPresent(String.self, "label")
            takenAt = try row.decode(Date.self, "taken_at")
        }
    }

    /// Each typed read converts and refuses exactly as `Decodable` does, through a fetch of all rows and through
    /// a fetch by key (repository and transaction), with the same message naming the column.
    @Test func typedReadsAcceptAndRefuseWhatDecodableAcceptsAndRefuses() throws {
        let cases: [(values: String, accepted: Reading?, refusal: String?)] = [
            (
                "2.0, 3, 'x', '2026-01-02T03:04:05.678Z'",
                Reading(id: 2, amount: 3, label: "x", takenAt: Date(timeIntervalSince1970: 1_767_323_045.678)), nil
            ),
            ("2, 2.5, NULL, 1790000000.5", Reading(id: 2, amount: 2.5, label: nil, takenAt: Date(timeIntervalSince1970: 1_790_000_000.5)), nil),
            ("2.5, 1, 'x', 0", nil, "column id: expected INTEGER, found REAL"),
            ("2, 'abc', 'x', 0", nil, "column amount: expected REAL, found TEXT"),
            ("2, NULL, 'x', 0", nil, "column amount: expected REAL, found NULL"),
            ("2, 1, 7, 0", nil, "column label: expected TEXT, found INTEGER"),
            ("2, 1, x'41', 0", nil, "column label: expected TEXT, found BLOB"),
            ("2, 1, 'x', 'not a date'", nil, "column taken_at: expected a date, found TEXT"),
            ("2, 1, 'x', NULL", nil, "column taken_at: expected a date, found NULL"),
        ]
        try withTemporaryStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE readings (id ANY, amount ANY, label ANY, taken_at ANY)") }
            let readings = store.repository(Reading.self)
            for (values, accepted, refusal) in cases {
                try store.write { tx in
                    try tx.execute("DELETE FROM readings")
                    try tx.execute("INSERT INTO readings VALUES (\(values))")
                }
                let decodable = Result { try store.read { try $0.fetchRows("SELECT * FROM readings") }.map { try $0.decode(Reading.self) } }
                let fast = Result { try store.read { try $0.fetchAll(RecordQuery<Reading>()) } }
                // The id case's key is 2.5, which the repository's Int64 key cannot name: a read by that key instead.
                let key: DatabaseValue = values.hasPrefix("2.5") ? .real(2.5) : .integer(2)
                let byKey = Result {
                    key == .integer(2) ? try readings.fetch(2) : try store.read { try $0.fetch(Reading.self, key: key) }
                }
                let byKeyInTransaction = Result { try store.write { try $0.fetch(Reading.self, key: key) } }
                if let accepted {
                    #expect(try decodable.get() == [accepted], "\(values)")
                    #expect(try fast.get() == [accepted], "\(values)")
                    #expect(try byKey.get() == accepted, "\(values)")
                    #expect(try byKeyInTransaction.get() == accepted, "\(values)")
                }
                if let refusal {
                    for (path, error) in [
                        ("Decodable", decodable.error), ("fetchAll", fast.error), ("fetch", byKey.error),
                        ("tx.fetch", byKeyInTransaction.error),
                    ] {
                        let failure = error as? StoreError
                        #expect(failure?.code == .invalidInput, "\(path), \(values): \(String(describing: error))")
                        #expect(failure?.message.contains(refusal) == true, "\(path), \(values): \(failure?.message ?? "no error")")
                    }
                }
            }
        }
    }
}

extension Result {
    /// The failure, or nil.
    fileprivate var error: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
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

/// A key whose value is set (not nil) but may still be NULL in the database.
private struct LabelKey: DatabaseValueConvertible, Codable {
    var number: Int64?
    var databaseValue: DatabaseValue { number.map { .integer($0) } ?? .null }
    static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> LabelKey? {
        Int64.fromDatabaseValue(databaseValue).map { LabelKey(number: $0) }
    }
}

/// A record with such a key.
private struct Labelled: Record, RowEncodable {
    typealias Key = LabelKey
    static let tableName = "labelled"
    var id: LabelKey
    var label: String

    func encode(to row: inout RowWriter) {
        row.encode(id, "id")
        row.encode(label, "label")
    }
}

/// A record that writes one column twice, the second time upper-cased.
private struct Shout: Record, RowEncodable {
    typealias Key = Int64
    static let tableName = "shouts"
    var id: Int64?
    var word: String

    mutating func didInsert(rowID: Int64) { id = rowID }

    func encode(to row: inout RowWriter) {
        if let id { row.encode(id, "id") }
        row.encode(word, "word")
        row.encode(word.uppercased(), "word")
    }
}

/// The fast encoding path (``RowEncodable``) writes exactly what `Encodable` writes.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct RowEncodableTests {
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
            let stored = try store.read { try $0.fetchAll(RecordQuery<Memo>().order(by: "id")) }
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
                #expect(try withoutNote.read { try $0.fetchAll(RecordQuery<Memo>()) } == [plain])
            }
        }
    }

    /// After a type's first update of some columns, its updates of the same columns bind straight into that
    /// statement, skipping the other columns: every update writes exactly its columns of its row, with
    /// more column sets in turn than a writer keeps statements for, a column named twice, and full updates.
    @Test func updatesBoundStraightIntoTheStatementWriteExactlyTheirColumns() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            let start = Date(timeIntervalSince1970: 1_790_000_000)
            var expected = try (0..<3).map { try nodes.insert(NodeVO(name: "n\($0)", x: 0, y: 0, createdAt: start)) }
            let columnSets = [
                ["x"], ["y", "name"], ["updated_at"], ["color"], ["width"], ["height"], ["x", "y"], ["name"],
                ["created_at"], ["x", "x"], ["height", "color", "width"],
            ]
            #expect(columnSets.count > RecordStatements.updateLimit)
            try store.write { tx in
                for round in 0..<3 {
                    for (set, columns) in columnSets.enumerated() {
                        for index in expected.indices {
                            let seed = Double(round * 100 + set * 10 + index)
                            let changed = NodeVO(
                                id: expected[index].id, name: "name \(seed)", x: seed, y: -seed, color: "#\(seed)",
                                width: seed + 1, height: seed + 2, createdAt: start.addingTimeInterval(seed),
                                updatedAt: start.addingTimeInterval(2 * seed))
                            try tx.update(changed, columns: columns)
                            expected[index] = Self.node(expected[index], taking: columns, from: changed)
                        }
                    }
                    var whole = expected[round]
                    whole.name = "whole \(round)"
                    whole.updatedAt = start.addingTimeInterval(Double(-round))
                    try tx.update(whole)
                    expected[round] = whole
                }
            }
            #expect(try nodes.fetchAll(RecordQuery().order(by: "id")) == expected)
        }
    }

    /// `base` with `columns` taken from `changed`.
    private static func node(_ base: NodeVO, taking columns: [String], from changed: NodeVO) -> NodeVO {
        var node = base
        for column in columns {
            switch column {
            case "name": node.name = changed.name
            case "x": node.x = changed.x
            case "y": node.y = changed.y
            case "color": node.color = changed.color
            case "width": node.width = changed.width
            case "height": node.height = changed.height
            case "created_at": node.createdAt = changed.createdAt
            case "updated_at": node.updatedAt = changed.updatedAt
            default: Issue.record("no column \(column)")
            }
        }
        return node
    }

    /// An update bound straight into a kept statement fails as the general update does: a missing row is
    /// not found (naming its key), a record without a key or without a named column is refused, and a
    /// record writing other columns than the kept statement's is updated rightly.
    @Test func updatesBoundStraightIntoTheStatementFailAsTheGeneralUpdateDoes() throws {
        try withTemporaryStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE memos (id INTEGER PRIMARY KEY, title TEXT, body TEXT, note TEXT)") }
            let memos = store.repository(Memo.self)
            var noted = try memos.insert(Memo(title: "a", body: "first", note: "n"))
            var plain = try memos.insert(Memo(title: "b", body: "second", note: nil))
            for attempt in 1...2 {
                noted.body = "changed \(attempt)"
                try memos.update(noted, columns: ["body"])  // the first keeps the statement, the second uses it
                let ghost = #expect(throws: StoreError.self) {
                    try memos.update(Memo(id: 99, title: "g", body: "ghost", note: "n"), columns: ["body"])
                }
                #expect(ghost?.code == .notFound)
                #expect(ghost?.message.contains("memos/99") == true)
                let keyless = #expect(throws: StoreError.self) {
                    try memos.update(Memo(title: "k", body: "keyless", note: "n"), columns: ["body"])
                }
                #expect(keyless?.code == .invalidInput)
            }
            try memos.update(noted, columns: ["note"])
            let unwritten = #expect(throws: StoreError.self) { try memos.update(plain, columns: ["note"]) }
            #expect(unwritten?.message == #"memos: cannot update column "note": it is not a column the record writes"#)
            plain.body = "plain changed"
            try memos.update(plain, columns: ["body"])  // writes no note, unlike the kept statement's record
            noted.note = "noted again"
            try memos.update(noted)
            plain.title = "plain title"
            try memos.update(plain)  // no note: the whole-record statement kept for `noted` does not fit
            noted.title = "noted title"
            try memos.update(noted)
            // Text in place, over the in-place limit of a value, and over that of a round.
            for (body, note) in [(15_000, 15_000), (20_000, 10), (40_000, 40_000), (3, 3)] {
                noted.body = String(repeating: "b", count: body)
                noted.note = String(repeating: "n", count: note)
                try memos.update(noted, columns: ["body", "note"])
                #expect(try memos.fetch(noted.id!) == noted)
            }
            #expect(try memos.fetchAll(RecordQuery().order(by: "id")) == [noted, plain])
        }
    }

    /// Through a kept statement, updates of a record that always writes its key fail as the general ones:
    /// without a key it is refused before anything runs, a missing row is not found, a CHECK violation
    /// changes nothing and is not logged, and a savepoint rolled back takes its update back.
    /// A key that converts to NULL is refused by an update through a kept statement as by the general one.
    @Test func aKeyThatIsNullInTheDatabaseIsRefusedThroughAKeptStatement() throws {
        try withTemporaryStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE labelled (id INTEGER PRIMARY KEY, label TEXT)") }
            let labelled = store.repository(Labelled.self)
            try labelled.insert(Labelled(id: LabelKey(number: 1), label: "a"))
            for label in ["b", "c"] {  // the first keeps the statement, the second binds into it
                try labelled.update(Labelled(id: LabelKey(number: 1), label: label))
            }
            #expect(try store.read { try $0.fetchValue("SELECT label FROM labelled WHERE id = 1") } == .text("c"))
            // Refused before anything runs: the kept statement, run first, would report the dropped column.
            try store.write { try $0.execute("ALTER TABLE labelled DROP COLUMN label") }
            let refused = #expect(throws: StoreError.self) { try labelled.update(Labelled(id: LabelKey(number: nil), label: "d")) }
            #expect(refused?.code == .invalidInput)
            #expect(refused?.message == "labelled: the record has no primary key value (id)")
        }
    }

    @Test func updatesThroughAKeptStatementFailAndRollBackAsTheGeneralUpdate() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            var node = try nodes.insert(NodeVO(name: "kept", x: 0, y: 0))
            let (recorder, token) = store.record(filter: .table("nodes"))
            var logged: [Double] = []
            for columns in [nil, ["x", "width"]] as [[String]?] {
                func update(_ record: NodeVO, in tx: SQLiteTransaction) throws {
                    if let columns { try tx.update(record, columns: columns) } else { try tx.update(record) }
                }
                for _ in 0..<2 {  // the first keeps the statement, the second binds into it
                    node.x += 1
                    try store.write { try update(node, in: $0) }
                    logged.append(node.x)
                }
                var keyless = node
                keyless.id = nil
                let refused = #expect(throws: StoreError.self) { try store.write { try update(keyless, in: $0) } }
                #expect(refused?.code == .invalidInput)
                #expect(refused?.message == "nodes: the record has no primary key value (id)")
                var ghost = node
                ghost.id = 999
                let missing = #expect(throws: StoreError.self) { try store.write { try update(ghost, in: $0) } }
                #expect(missing?.code == .notFound)
                #expect(missing?.message == "record nodes/999 not found")
                var negative = node
                negative.width = -1
                let violation = #expect(throws: StoreError.self) { try store.write { try update(negative, in: $0) } }
                #expect(violation?.code == .constraint)
                struct Abort: Error {}
                try store.write { tx in
                    #expect(throws: Abort.self) {
                        try tx.savepoint { inner in
                            var moved = node
                            moved.x = 1_000
                            try update(moved, in: inner)
                            throw Abort()
                        }
                    }
                    node.x += 1
                    try update(node, in: tx)
                }
                logged.append(node.x)
            }
            #expect(try nodes.fetch(node.id!) == node)
            #expect(recorder.wait(for: logged.count))
            #expect(recorder.changes.map { $0.new?.value("x", as: Double.self) } == logged)
            withExtendedLifetime(token) {}
            // The key is checked before the kept statement runs, as the general update checks it first.
            try store.write { try $0.execute("ALTER TABLE nodes DROP COLUMN color") }
            var keyless = node
            keyless.id = nil
            let refused = #expect(throws: StoreError.self) { try nodes.update(keyless) }
            #expect(refused?.message == "nodes: the record has no primary key value (id)")
        }
    }

    /// A record writing a column twice is updated the same way every time: its statement is not kept.
    @Test func aRecordWritingAColumnTwiceIsUpdatedTheSameWayEveryTime() throws {
        try withTemporaryStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE shouts (id INTEGER PRIMARY KEY, word TEXT)") }
            try store.write { try $0.execute("INSERT INTO shouts (id, word) VALUES (1, 'none')") }
            var stored: [String] = []
            for word in ["first", "second", "third"] {
                try store.write { try $0.update(Shout(id: 1, word: word), columns: ["word"]) }
                stored.append(try store.read { try $0.fetchRows("SELECT word FROM shouts")[0].value("word", as: String.self) ?? "" })
            }
            #expect(stored == ["FIRST", "SECOND", "THIRD"])
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
            let stored = try store.read { try $0.fetchAll(RecordQuery<Memo>().order(by: "id")) }
            #expect(stored == inserted)
            #expect(stored.map(\.body.count) == [1, 5_000, 20_000, 16_000, 16_000, 40])
        }
    }
}
