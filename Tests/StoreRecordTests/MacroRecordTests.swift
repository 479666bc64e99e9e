import Foundation
import ObservableStore
import StoreRecord
import StoreTestSupport
import TestScheduling
import Testing

/// A `@Record` struct behaves as a hand-written fast record on a real store: round trips through the
/// `RowDecodable`/`RowEncodable` fast paths, snake_case and renamed columns, typed and key-path filters, typed keys.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct MacroRecordTests {
    @Test func theMacroMakesAFastRecord() {
        #expect(Card.tableName == "cards")
        #expect(Card.primaryKey == "id")
        #expect((Card.self as Any.Type) is any RowDecodable.Type)
        #expect((Card.self as Any.Type) is any RowEncodable.Type)
        #expect(Card.Key.self == Int64.self)
        #expect(Card.Columns.body.stringValue == "body_text")
        #expect(Card.Columns.wordCount.stringValue == "word_count")
        #expect(Card.columnPaths.createdAt.name == "created_at")
        #expect(Label.primaryKey == "slug")
        #expect(Label.Key.self == String.self)
    }

    @Test func aMacroRecordRoundTripsUnderItsColumnNames() throws {
        try withTemporaryStore(configuration: Card.configuration) { store, _ in
            let cards = store.repository(Card.self)
            let created = Date(timeIntervalSince1970: 1_790_000_000.125)
            var card = try cards.insert(Card(title: "First", body: nil, createdAt: created, score: 1.5, pinned: true, wordCount: 3))
            #expect(card.id == 1)
            #expect(try cards.fetch(1) == card)
            let row = try #require(try store.read { try $0.fetchRows("SELECT * FROM cards").first })
            #expect(row["body_text"] == .null)
            #expect(row["created_at"] == .text("2026-09-21T14:13:20.125Z"))
            #expect(row["word_count"] == .integer(3))
            #expect(row["pinned"] == .integer(1))
            card.body = "now written"
            card.score = 2
            try cards.update(card)
            #expect(try cards.fetch(1) == card)
            card.score = 9
            card.title = "not written"
            try cards.update(card, columns: [.score])
            #expect(try cards.fetch(1)?.score == 9)
            #expect(try cards.fetch(1)?.title == "First")
            // The Codable path (rows of raw SQL) reads the same record.
            #expect(try store.read { try $0.fetchRows("SELECT * FROM cards") }.map { try $0.decode(Card.self) }.first?.score == 9)
            #expect(try cards.delete(key: 1))
            #expect(try cards.fetch(1) == nil)
        }
    }

    @Test func typedAndKeyPathFiltersSelectWhatTheStringFormsSelect() throws {
        try withTemporaryStore(configuration: Card.configuration) { store, _ in
            let cards = store.repository(Card.self)
            let start = Date(timeIntervalSince1970: 1_790_000_000)
            try cards.insertAll(
                (0..<10).map { index in
                    Card(
                        title: "c\(index)", body: index % 2 == 0 ? "even" : nil, createdAt: start + Double(index),
                        score: Double(10 - index), pinned: index % 3 == 0, wordCount: index)
                })
            let expected = try cards.fetchAll(RecordQuery().filter("score", .greaterThan, 4.0).order(by: "body_text").order(by: "created_at"))
            #expect(expected.count == 6)
            #expect(try cards.fetchAll(RecordQuery().filter(.score, .greaterThan, 4.0).order(by: .body).order(by: .createdAt)) == expected)
            #expect(try cards.fetchAll(RecordQuery().filter(\.score, .greaterThan, 4).order(by: \.body).order(by: \.createdAt)) == expected)
            #expect(try cards.count(RecordQuery().filter(\.body, equals: nil)) == 5)
            #expect(try cards.count(RecordQuery().filter(\.pinned, equals: true)) == 4)
            #expect(try cards.count(RecordQuery().filter(\.createdAt, .greaterThanOrEqual, start + 8)) == 2)
        }
    }

    @Test func aMacroRecordReadsTheRowsOfTheHandWrittenNodeVO() throws {
        try withTemporaryStore { store, _ in
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "A", x: 1.5, y: -2, color: "#FF0000"))
            let macroNodes = store.repository(MacroNode.self)
            let read = try #require(try macroNodes.fetch(node.id!))
            #expect(read.name == node.name && read.x == node.x && read.y == node.y && read.color == node.color)
            #expect(read.createdAt == node.createdAt && read.updatedAt == node.updatedAt)
            var moved = try macroNodes.insert(MacroNode(from: NodeVO(name: "B", x: 3, y: 4)))
            #expect(moved.id == 2)
            moved.x = 30
            try macroNodes.update(moved, columns: [.x])
            #expect(try store.repository(NodeVO.self).fetch(2)?.x == 30)
        }
    }

    @Test func aTypedListenerDecodesMacroRecords() throws {
        try withTemporaryStore(configuration: Card.configuration) { store, _ in
            let received = Recorder<Card>()
            let token = store.listen("cards", to: Card.self, options: ListenerOptions(immediate: true)) { event in
                guard case .commit(let commit) = event else { return }
                for change in commit.changes { if let card = change.new { received.append(card) } }
            }
            let card = try store.repository(Card.self).insert(
                Card(title: "t", body: "b", createdAt: Date(timeIntervalSince1970: 0), score: 0, pinned: false, wordCount: 1))
            #expect(received.wait(for: 1))
            #expect(received.all == [card])
            withExtendedLifetime(token) {}
        }
    }
}

@Record(table: "cards")
struct Card: Equatable {
    var id: Int64?
    var title: String
    @Column("body_text") var body: String?
    var createdAt: Date
    var score: Double
    var pinned: Bool
    var wordCount: Int
    /// Computed: not a column.
    var isLong: Bool { wordCount > 100 }
    static let defaultScore = 0.0

    init(id: Int64? = nil, title: String, body: String?, createdAt: Date, score: Double, pinned: Bool, wordCount: Int) {
        self.id = id
        self.title = title
        self.body = body
        self.createdAt = createdAt
        self.score = score
        self.pinned = pinned
        self.wordCount = wordCount
    }

    static var configuration: SQLiteStoreConfiguration {
        let sql = """
            CREATE TABLE cards (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body_text TEXT, created_at TEXT NOT NULL,
              score REAL NOT NULL, pinned INTEGER NOT NULL, word_count INTEGER NOT NULL)
            """
        var configuration = SQLiteStoreConfiguration()
        configuration.migrationSets = [try! MigrationSet(name: "cards", migrations: [Migration(version: 1, name: "create_cards", sql: sql)])]
        return configuration
    }
}

/// A key that is not `id`, and not an integer.
@Record(table: "labels", primaryKey: "slug")
public struct Label: Hashable {
    public var slug: String
    public var title: String
}

/// `nodes` through the macro: NodeVO's nine columns, no hand-written coding.
@Record(table: "nodes")
struct MacroNode: Equatable {
    var id: Int64?
    var name: String
    var x: Double
    var y: Double
    var color: String
    var width: Double
    var height: Double
    var createdAt: Date
    var updatedAt: Date

    init(from node: NodeVO) {
        (id, name, x, y, color) = (node.id, node.name, node.x, node.y, node.color)
        (width, height, createdAt, updatedAt) = (node.width, node.height, node.createdAt, node.updatedAt)
    }
}
