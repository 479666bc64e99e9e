import Foundation
import StoreSQLite
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Typed events decode their rows as fetches do: through ``RowDecodable`` when the record conforms.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct RecordEventTests {
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

    /// A store with the `marked` table, whose listener errors are reported into the recorder given.
    private func withMarkedTable(_ body: (SQLiteStore, Recorder<String>) throws -> Void) throws {
        let reported = Recorder<String>()
        var configuration = SQLiteStoreConfiguration()
        configuration.listenerErrorHandler = { name, error in reported.append("\(name): \(error)") }
        try withTemporaryStore(configuration: configuration) { store, _ in
            try store.write { tx in try tx.execute(RecordEventTests.createTable) }
            try body(store, reported)
        }
    }

    @Test func aRowThatDoesNotDecodeReachesTheHandlerAsAnErrorNamingTableColumnAndSequence() throws {
        try withMarkedTable { store, reported in
            let events = Recorder<RecordEvent<Marked>>()
            let token = store.listen("marked", to: Marked.self, options: ListenerOptions(immediate: true)) { events.append($0) }
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (1, 'ok')") }  // 2
            // A BLOB where Marked reads TEXT: the row decoder's type mismatch in column `name`.
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (2, X'01')") }  // 3
            // A row Marked's initializer refuses with its own error: the column is not known.
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (3, ?)", [Marked.refused]) }  // 4
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (4, 'later')") }  // 5
            #expect(events.all.count == 4)
            let failures = events.all.compactMap { event -> StoreError? in
                if case .decodingFailed(let error) = event { return error }
                if case .resync = event { Issue.record("a decoding failure delivered as a resync") }
                return nil
            }
            try #require(failures.count == 2)
            #expect(failures.allSatisfy { $0.code == .invalidInput })
            #expect(failures[0].message.contains("commit 3"))
            #expect(failures[0].message.contains("table marked"))
            #expect(failures[0].message.contains("column name"))
            #expect(failures[1].message.contains("commit 4") && failures[1].message.contains("table marked"))
            #expect(failures[1].message.contains("refused"))
            // The listener goes on: the next commit is delivered.
            if case .commit(let commit) = events.all.last {
                #expect(commit.sequence == 5 && commit.changes.first?.new?.name == "later")
            } else {
                Issue.record("no commit after the failures")
            }
            // The application's error handler hears about both.
            #expect(reported.all.count == 2)
            #expect(reported.all.first?.hasPrefix("marked: commit 3") == true)
            withExtendedLifetime(token) {}
        }
    }

    @Test func aTypedListenerCombinesTheCallersFilterWithItsTable() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in
                try tx.execute(RecordEventTests.createTable)
                try tx.execute("CREATE TABLE other (id INTEGER PRIMARY KEY, name TEXT)")
            }
            let keyed = Recorder<RecordEvent<Marked>>()
            let keyedToken = store.listen(
                "keyed", to: Marked.self, filter: ChangeFilter(keys: [.integer(2)]), options: ListenerOptions(immediate: true)
            ) { keyed.append($0) }
            let both = Recorder<RecordEvent<Marked>>()
            let bothToken = store.listen(
                "both", to: Marked.self, filter: ChangeFilter(tables: ["marked", "other"]), options: ListenerOptions(immediate: true)
            ) { both.append($0) }
            try store.write { tx in
                try tx.execute("INSERT INTO marked (id, name) VALUES (1, 'a')")
                try tx.execute("INSERT INTO other (id, name) VALUES (1, 'x')")
            }
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (2, 'b')") }
            try store.write { tx in try tx.execute("INSERT INTO other (id, name) VALUES (2, 'y')") }
            #expect(keyed.all.flatMap(Self.names) == ["b"])
            #expect(both.all.flatMap(Self.names) == ["a", "b"])
            withExtendedLifetime((keyedToken, bothToken)) {}
        }
    }

    @Test func aTypedListenerRefusesAFilterThatLeavesItsTableOut() throws {
        try withMarkedTable { store, reported in
            let existing = Recorder<RecordEvent<Marked>>()
            let existingToken = store.listen("marked", to: Marked.self, options: ListenerOptions(immediate: true)) {
                existing.append($0)
            }
            let refused = Recorder<RecordEvent<Marked>>()
            let refusedToken = store.listen(
                "marked", to: Marked.self, filter: .table("other"), options: ListenerOptions(immediate: true)
            ) { refused.append($0) }
            #expect(refusedToken.isCancelled)
            #expect(reported.all.count == 1)
            #expect(reported.all.first.map { $0.contains("other") && $0.contains("marked") } == true)
            try store.write { tx in try tx.execute("INSERT INTO marked (id, name) VALUES (1, 'a')") }
            #expect(refused.all.isEmpty)
            // The listener already registered under that name is left alone.
            #expect(!existingToken.isCancelled)
            #expect(existing.all.flatMap(Self.names) == ["a"])
            #expect(store.listenerNames == ["marked"])
        }
    }

    /// The new names of a typed event's changes.
    private static func names(_ event: RecordEvent<Marked>) -> [String] {
        guard case .commit(let commit) = event else { return [] }
        return commit.changes.compactMap(\.new?.name)
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
