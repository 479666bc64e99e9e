import Foundation
import ObservableStore

/// A table's columns as `PRAGMA table_info` describes them: what storectl checks input against.
struct TableInfo {
    struct Column {
        let name: String
        let type: String
        let notNull: Bool
        let defaultValue: String?
        /// Position in the primary key (1-based), 0 when not part of it.
        let primaryKeyPosition: Int

        /// The storage class a value must have: "INTEGER", "REAL", "TEXT", "BLOB", or "ANY". Worked out once
        /// from `type` (the import checks it for every value).
        let affinity: String

        init(name: String, type: String, notNull: Bool, defaultValue: String?, primaryKeyPosition: Int) {
            self.name = name
            self.type = type
            self.notNull = notNull
            self.defaultValue = defaultValue
            self.primaryKeyPosition = primaryKeyPosition
            affinity = Self.affinity(of: type)
        }

        private static func affinity(of type: String) -> String {
            let upper = type.uppercased()
            if upper.contains("INT") { return "INTEGER" }
            if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") { return "TEXT" }
            if upper.contains("BLOB") || upper == "BYTEA" { return "BLOB" }
            if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") { return "REAL" }
            return upper.isEmpty || upper == "ANY" ? "ANY" : "NUMERIC"
        }
    }

    let name: String
    let columns: [Column]

    /// The primary key's columns in key order (the rowid alias when none is declared).
    var primaryKey: [Column] { columns.filter { $0.primaryKeyPosition > 0 }.sorted { $0.primaryKeyPosition < $1.primaryKeyPosition } }

    func column(named name: String) -> Column? { columns.first { $0.name == name } }

    /// Reads `table`'s description; throws not found for a missing table or an internal one.
    static func load(_ table: String, in tx: any CommandTransaction) throws -> TableInfo {
        guard let columns = try tx.columns(of: table) else { throw StoreError(.notFound, "table \(table) not found") }
        return TableInfo(name: table, columns: columns)
    }

    /// The user tables of the store (not the engine's, not the store's internal ones), by name.
    static func userTables(in tx: any CommandTransaction) throws -> [String] {
        try tx.userTables()
    }

    /// `"name"`, quoted as an SQL identifier.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The single primary-key column used for KEY arguments; `rowid` for a table without one.
    func keyColumn() throws -> Column {
        let key = primaryKey
        guard key.count <= 1 else {
            throw CLIError.usage("table \(name) has a composite primary key (\(key.map(\.name).joined(separator: ", "))); use --where")
        }
        return key.first ?? Column(name: "rowid", type: "INTEGER", notNull: true, defaultValue: nil, primaryKeyPosition: 1)
    }

    /// A KEY argument as a value of the key column's type.
    func keyValue(_ text: String) throws -> DatabaseValue {
        let column = try keyColumn()
        return try ValueText.parse(text, for: column, table: name)
    }
}

/// Values typed on the command line (`--set col=VAL`, KEY arguments, CSV fields), converted by column type.
enum ValueText {
    static func parse(_ text: String, for column: TableInfo.Column, table: String, nullIfEmpty: Bool = false) throws -> DatabaseValue {
        if text == "null" || (nullIfEmpty && text.isEmpty && column.affinity != "TEXT") { return .null }
        switch column.affinity {
        case "INTEGER":
            if text == "true" { return .integer(1) }
            if text == "false" { return .integer(0) }
            guard let integer = Int64(text) else { throw mismatch(text, column, table, "an integer") }
            return .integer(integer)
        case "REAL":
            guard let real = Double(text), real.isFinite else { throw mismatch(text, column, table, "a number") }
            return .real(real)
        case "NUMERIC", "ANY":
            if let integer = Int64(text) { return .integer(integer) }
            if let real = Double(text), real.isFinite { return .real(real) }
            return .text(text)
        case "BLOB":
            guard let data = Data(base64Encoded: text) else { throw mismatch(text, column, table, "base64 bytes") }
            return .blob(data)
        default:
            return .text(text)
        }
    }

    static func mismatch(_ text: String, _ column: TableInfo.Column, _ table: String, _ expected: String) -> StoreError {
        StoreError(.invalidInput, "\(table).\(column.name) is \(column.type): '\(text)' is not \(expected)")
    }
}
