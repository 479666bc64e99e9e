import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

// A raw read after a column was added or dropped. The reader connection still holds the old schema (and,
// for the cached paths, the statement prepared with it); SQLite re-prepares the statement inside its first step,
// with other columns. Each raw path must return the new columns, or fail with a StoreError: never trap.

/// A column change made between two reads of table `t (id, a, b)`.
struct ColumnChange: Sendable, CustomTestStringConvertible {
    let name: String
    let sql: String
    /// The columns of `SELECT * FROM t` afterwards, and each row's values (id 1, then id 2).
    let columns: [String]
    let rows: [[DatabaseValue]]
    var testDescription: String { name }

    static let all = [
        ColumnChange(
            name: "ADD COLUMN", sql: "ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'c'", columns: ["id", "a", "b", "c"],
            rows: [[.integer(1), .text("a1"), .text("b1"), .text("c")], [.integer(2), .text("a2"), .text("b2"), .text("c")]]),
        ColumnChange(
            name: "DROP COLUMN", sql: "ALTER TABLE t DROP COLUMN b", columns: ["id", "a"],
            rows: [[.integer(1), .text("a1")], [.integer(2), .text("a2")]]),
        // As many columns as before, other names: only a re-read of the names after the step tells.
        ColumnChange(
            name: "DROP COLUMN then ADD COLUMN", sql: "ALTER TABLE t DROP COLUMN b; ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'c'",
            columns: ["id", "a", "c"], rows: [[.integer(1), .text("a1"), .text("c")], [.integer(2), .text("a2"), .text("c")]]),
    ]
}

/// Who makes the column change.
enum ColumnChanger: String, Sendable, CaseIterable {
    /// `store.write` in this process (the writer connection; the reader keeps its old schema).
    case thisProcess
    /// The `sqlite3` shell, another process.
    case sqliteShell
}

@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct SchemaChangeReadTests {
    /// A row of `t`, decoded by column name: a column the table no longer has is nil.
    struct Wide: Decodable, Equatable {
        var id: Int64
        var a: String?
        var b: String?
        var c: String?
    }

    /// ``Wide`` read through the fast row decoder (``RowDecodable``), which finds its columns the same way.
    struct FastWide: Decodable, Equatable, RowDecodable {
        var wide: Wide

        init(row: RowReader) throws {
            wide = Wide(
                id: try row.decode(Int64.self, "id"), a: try row.decodeIfPresent(String.self, "a"),
                b: try row.decodeIfPresent(String.self, "b"), c: try row.decodeIfPresent(String.self, "c"))
        }
    }

    /// One reader connection, so the read after the change runs on the connection that read before it.
    private static var oneReader: SQLiteStoreConfiguration {
        var configuration = SQLiteStoreConfiguration()
        configuration.maximumReaderCount = 1
        return configuration
    }

    /// Makes `t`, reads it through `read` (preparing and caching with the old schema), changes it, and returns
    /// what `read` finds then.
    private func readAcross<T>(
        _ change: ColumnChange, by changer: ColumnChanger, _ read: (SQLiteTransaction) throws -> T
    ) throws -> T {
        try withTemporaryStore(configuration: Self.oneReader) { store, path in
            try store.write { tx in
                try tx.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT)")
                try tx.execute("INSERT INTO t VALUES (1, 'a1', 'b1'), (2, 'a2', 'b2')")
            }
            _ = try store.read(read)
            switch changer {
            case .thisProcess:
                try store.write { try $0.execute(change.sql) }
            case .sqliteShell:
                let shell = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }
                let sqlite3 = try #require(shell, "the sqlite3 shell is needed (apt-get install sqlite3)")
                let child = try runShellScript(
                    [sqlite3, "-bail", "-cmd", ".timeout 5000", path, change.sql].map(quotedForShell).joined(separator: " "),
                    timeout: 60)
                try #require(child.status == 0 && !child.signaled, "sqlite3 failed: \(child.stderr)")
            }
            return try store.read(read)
        }
    }

    @Test(arguments: ColumnChange.all, ColumnChanger.allCases)
    func fetchRowsReturnsTheNewColumns(_ change: ColumnChange, _ changer: ColumnChanger) throws {
        let rows = try readAcross(change, by: changer) { try $0.fetchRows("SELECT * FROM t ORDER BY id") }
        #expect(rows.map(\.columns) == [change.columns, change.columns])
        #expect(rows.map(\.values) == change.rows)
    }

    @Test(arguments: ColumnChange.all, ColumnChanger.allCases)
    func fetchRowsNamedReturnsTheNewColumns(_ change: ColumnChange, _ changer: ColumnChanger) throws {
        let rows = try readAcross(change, by: changer) {
            try $0.fetchRows("SELECT * FROM t WHERE id >= :first ORDER BY id", named: ["first": 1])
        }
        #expect(rows.map(\.columns) == [change.columns, change.columns])
        #expect(rows.map(\.values) == change.rows)
    }

    @Test(arguments: ColumnChange.all, ColumnChanger.allCases)
    func fetchValueReadsTheNewStatement(_ change: ColumnChange, _ changer: ColumnChanger) throws {
        let value = try readAcross(change, by: changer) { try $0.fetchValue("SELECT * FROM t ORDER BY id DESC") }
        #expect(value == .integer(2))
    }

    @Test(arguments: ColumnChange.all, ColumnChanger.allCases)
    func fetchAllDecodesTheNewColumnsByName(_ change: ColumnChange, _ changer: ColumnChanger) throws {
        let decoded = try readAcross(change, by: changer) { tx in
            (try tx.fetchAll(Wide.self, sql: "SELECT * FROM t ORDER BY id"), try tx.fetchAll(FastWide.self, sql: "SELECT * FROM t ORDER BY id"))
        }
        let expected = change.rows.map { values -> Wide in
            let row = Row(columns: change.columns, values: values)
            return Wide(id: row.value("id") ?? 0, a: row.value("a"), b: row.value("b"), c: row.value("c"))
        }
        #expect(decoded.0 == expected, "Decodable")
        #expect(decoded.1.map(\.wide) == expected, "RowDecodable")
    }

    /// A column that a cached statement names is dropped: the re-prepare fails, and that is a StoreError.
    @Test(arguments: ColumnChanger.allCases)
    func aDroppedColumnNamedByACachedStatementIsAStoreError(_ changer: ColumnChanger) throws {
        let dropB = ColumnChange.all[1]
        let error = #expect(throws: StoreError.self) {
            _ = try readAcross(dropB, by: changer) { try $0.fetchRows("SELECT id, b FROM t") }
        }
        #expect(error?.code == .invalidInput, "\(String(describing: error))")
        #expect(error?.message.contains("no such column: b") == true, "\(String(describing: error))")
    }
}
