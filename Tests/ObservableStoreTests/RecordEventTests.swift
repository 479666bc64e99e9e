import Foundation
import StoreSQLite
import StoreTestSupport
import Testing

@testable import ObservableStore

/// Typed events decode their rows as fetches do: through ``RowDecodable`` when the record conforms.
@Suite(.timeLimit(.minutes(3))) struct RecordEventTests {
    private static let createTable = "CREATE TABLE marked (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"

    @Test func typedEventsUseTheRowDecoder() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in try tx.execute(RecordEventTests.createTable) }
            let events = Recorder<RecordEvent<Marked>>()
            let token = store.listen("marked", to: Marked.self, options: ListenerOptions(immediate: true)) { events.append($0) }
            let inserted = try store.repository(Marked.self).insert(Marked(name: "a"))
            try store.write { tx in try tx.execute("UPDATE marked SET name = 'b' WHERE id = ?", [inserted.id]) }
            try store.repository(Marked.self).delete(key: try #require(inserted.id))
            let changes = events.all.compactMap { event -> RecordChange<Marked>? in
                guard case .commit(let commit) = event else { return nil }
                return commit.changes.first
            }
            #expect(changes.map(\.operation) == [.insert, .update, .delete])
            #expect(changes.compactMap(\.new).map(\.name) == ["a", "b"])
            #expect(changes.compactMap(\.old).map(\.name) == ["a", "b"])
            // Every decoded record came through init(row:): Marked's Decodable initializer throws.
            let records = changes.compactMap(\.new) + changes.compactMap(\.old)
            #expect(records.count == 4 && records.allSatisfy { $0.decodedByRow })
            withExtendedLifetime(token) {}
        }
    }

    @Test func bindAndFireDecodesChangedRowsWithTheRowDecoder() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in try tx.execute(RecordEventTests.createTable) }
            let inserted = try store.repository(Marked.self).insert(Marked(name: "a"))
            let values = Recorder<Marked?>()
            let token = try store.bindAndFire("bound", Marked.self, key: try #require(inserted.id)) { values.append($0) }
            try store.write { tx in try tx.execute("UPDATE marked SET name = 'b' WHERE id = ?", [inserted.id]) }
            try waitUntil { values.all.count == 2 }
            #expect(values.all.map { $0?.name } == ["a", "b"])
            #expect(values.all.allSatisfy { $0?.decodedByRow == true })
            withExtendedLifetime(token) {}
        }
    }

    @Test func rowDecodeUsesTheRowDecoderAndReportsItsErrors() throws {
        let row = Row(columns: ["id", "name"], values: [.integer(1), .text("a")])
        #expect(try row.decode(Marked.self).decodedByRow)
        // A plain Decodable type still decodes through Decodable.
        #expect(try row.decode(Plain.self) == Plain(id: 1, name: "a"))
        // A wrong storage class: the row decoder's error, as a StoreError naming the column.
        let wrong = Row(columns: ["id", "name"], values: [.integer(1), .integer(2)])
        #expect {
            try wrong.decode(Marked.self)
        } throws: { error in
            (error as? StoreError)?.code == .invalidInput && "\(error)".contains("name")
        }
    }

    @Test func aRowTheRowDecoderRefusesBecomesAGap() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in try tx.execute(RecordEventTests.createTable) }
            let events = Recorder<RecordEvent<Marked>>()
            let token = store.listen("marked", to: Marked.self, options: ListenerOptions(immediate: true)) { events.append($0) }
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (1, 'ok')") }  // 2
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (2, ?)", [Marked.refused]) }  // 3
            #expect(events.all.count == 2)
            if case .commit(let commit) = events.all.first { #expect(commit.changes.first?.new?.name == "ok") } else { Issue.record("no commit") }
            if case .gap(let missed) = events.all.last { #expect(missed == 3...3) } else { Issue.record("no gap") }
            withExtendedLifetime(token) {}
        }
    }
}

/// A record whose row decoder marks what it decodes, and whose `Decodable` initializer always throws:
/// a record that reaches a handler came through ``RowDecodable``.
private struct Marked: Record, RowDecodable {
    typealias Key = Int64
    static let tableName = "marked"
    /// A name `init(row:)` refuses.
    static let refused = "refused"

    var id: Int64?
    var name: String
    var decodedByRow = false

    enum CodingKeys: String, CodingKey { case id, name }

    init(name: String) { self.name = name }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Marked decodes through RowDecodable only"))
    }

    init(row: RowReader) throws {
        id = try row.decodeIfPresent(Int64.self, "id")
        name = try row.decode(String.self, "name")
        guard name != Marked.refused else { throw StoreError(.invalidInput, "refused") }
        decodedByRow = true
    }

    mutating func didInsert(rowID: Int64) { id = rowID }
}

/// A record with only `Codable`.
private struct Plain: Codable, Equatable {
    var id: Int64
    var name: String
}
