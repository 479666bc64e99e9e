import Foundation
import ObservableStore

// The SQLite store as storectl's commands use it (CommandStore.swift).
extension SQLiteStore: CommandStore {
    var location: String { path }

    var knownSchemaVersion: Int { MigrationSet.store.latestVersion }

    func storage() throws -> StoreStorage {
        // Read from the WAL index: `info` never checkpoints.
        let wal = walFrames() ?? CheckpointResult(walFrames: 0, checkpointedFrames: 0)
        return StoreStorage(
            sizeBytes: SQLiteStore.fileSize(path), journal: "wal", walBytes: SQLiteStore.fileSize(path + "-wal"),
            walFrames: Int64(wal.walFrames), walCheckpointedFrames: Int64(wal.checkpointedFrames))
    }

    func integrityProblems(quick: Bool) throws -> [String] {
        var problems = try read { tx in
            try tx.fetchRows(quick ? "PRAGMA quick_check" : "PRAGMA integrity_check").compactMap { $0[0] == .text("ok") ? nil : Output.cell($0[0]) }
        }
        problems += try read { tx in
            try tx.fetchRows("PRAGMA foreign_key_check").map { row in
                "foreign key: \(Output.cell(row[0])) rowid \(Output.cell(row[1])) refers to a missing \(Output.cell(row[2]))"
            }
        }
        return problems + (try changeLogPieceProblems())
    }

    /// A file with another application id, or without the history table, is not a storectl store.
    func checkIsStore() throws {
        let (applicationID, hasHistory) = try read { tx in
            (
                try tx.fetchValue("PRAGMA application_id").flatMap(Int64.fromDatabaseValue) ?? 0,
                try tx.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = '_store_migrations'") == .integer(1)
            )
        }
        guard applicationID == Int64(SQLiteStore.applicationID), hasHistory else {
            throw StoreError(.notAStore, "\(path) is not a storectl store (no application_id 0x53544f52 or migration history)")
        }
    }

    /// The size of the file at `path` in bytes; 0 when there is none.
    static func fileSize(_ path: String) -> Int64 {
        Int64((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    }
}

// The SQLite transaction as storectl's commands use it: the catalog from sqlite_master and the table pragmas.
extension SQLiteTransaction: CommandTransaction {
    func forEachRow(
        _ sql: String, named arguments: [String: any DatabaseValueConvertible], _ body: (any RowCells) throws -> Void
    ) throws {
        try forEachRow(sql, named: arguments) { (cursor: RowCursor) in try body(cursor) }
    }

    func placeholder(for column: TableInfo.Column) -> String { "?" }

    func userTables() throws -> [String] {
        try fetchRows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_store\\_%' ESCAPE '\\' ORDER BY name"
        ).compactMap { $0.value("name") }
    }

    func columns(of table: String) throws -> [TableInfo.Column]? {
        let exists = try fetchValue(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ? AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_store\\_%' ESCAPE '\\'",
            [table]) == .integer(1)
        guard exists else { return nil }
        return try fetchRows("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", [table]).map { row in
            TableInfo.Column(
                name: row.value("name") ?? "", type: row.value("type") ?? "", notNull: row.value("notnull", as: Int.self) == 1,
                defaultValue: row.value("dflt_value"), primaryKeyPosition: row.value("pk") ?? 0)
        }
    }

    func indexNames(of table: String) throws -> [String] {
        try fetchRows("SELECT name FROM pragma_index_list(?) WHERE origin = 'c'", [table]).compactMap { $0.value("name", as: String.self) }
    }

    func createStatements(of table: String) throws -> String {
        try fetchRows("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type DESC, name", [table])
            .compactMap { $0.value("sql", as: String.self) }.map { $0 + ";" }.joined(separator: "\n")
    }
}
