import ObservableStore

/// Writes imported records: one INSERT (or upsert) text per set of columns, built once and run as a cached
/// statement with the record's values bound in input order.
final class ImportStatements {
    private let table: TableInfo
    private let upsert: Bool
    private var texts: [[Int]: String] = [:]
    private var lastColumns: [Int] = []
    private var lastText = ""
    /// The primary key's columns (indexes into the table's), and the query that finds a row by them (upserts).
    private let keyColumns: [Int]
    private let existsText: String
    private var keyValues: [DatabaseValue] = []

    /// How a value is written to each column (`?`, or on PostgreSQL `?` cast to the column's type), by column index.
    private let placeholders: [String]

    /// Statements for `table`; with `upsert`, a record whose primary key exists updates that row's other columns.
    /// `tx` says how values are written on its engine.
    init(table: TableInfo, upsert: Bool, in tx: any CommandTransaction) throws {
        self.table = table
        let placeholders = table.columns.map { tx.placeholder(for: $0) }
        self.placeholders = placeholders
        self.upsert = upsert
        let keyColumns = table.primaryKey.compactMap { key in table.columns.firstIndex { $0.name == key.name } }
        self.keyColumns = keyColumns
        if upsert, keyColumns.isEmpty { throw CLIError.usage("\(table.name) has no primary key to upsert on") }
        existsText = "SELECT 1 FROM \(TableInfo.quote(table.name)) WHERE "
            + keyColumns.map { "\(TableInfo.quote(table.columns[$0].name)) = \(placeholders[$0])" }.joined(separator: " AND ")
    }

    /// Writes `record` in `tx`; returns true for an insert, false for an upsert that updated an existing row.
    /// A failure names the record's input line (and its key when it has one).
    func write(_ record: InputRecord, in tx: any CommandTransaction) throws -> Bool {
        let sql = text(for: record.columns)
        var existed = false
        if upsert, keyColumns.allSatisfy({ record.columns.contains($0) }) {
            keyValues.removeAll(keepingCapacity: true)
            for key in keyColumns { keyValues.append(record.values[record.columns.firstIndex(of: key)!]) }
            existed = try tx.fetchValue(existsText, values: keyValues) != nil
        }
        do {
            try tx.execute(sql, values: record.values)
        } catch let error as StoreError {
            let keyText = keyColumns.first.flatMap { key in
                record.columns.firstIndex(of: key).map { " \(table.columns[key].name) \(JSONText.value(record.values[$0]))" }
            } ?? ""
            throw StoreError(error.code, "\(error.message) (input line \(record.line)\(keyText))", sqliteCode: error.sqliteCode)
        }
        return !existed
    }

    /// The statement text for records naming `columns` (in this order).
    private func text(for columns: [Int]) -> String {
        if columns == lastColumns, !lastText.isEmpty { return lastText }
        let text = texts[columns] ?? makeText(for: columns)
        texts[columns] = text
        lastColumns = columns
        lastText = text
        return text
    }

    private func makeText(for columns: [Int]) -> String {
        let names = columns.map { table.columns[$0].name }
        let into = "INSERT INTO \(TableInfo.quote(table.name))"
        var sql =
            names.isEmpty
            ? "\(into) DEFAULT VALUES"
            : "\(into) (\(names.map(TableInfo.quote).joined(separator: ", "))) VALUES (\(columns.map { placeholders[$0] }.joined(separator: ", ")))"
        if upsert {
            let keyNames = keyColumns.map { table.columns[$0].name }
            let updates = names.filter { !keyNames.contains($0) }.map { "\(TableInfo.quote($0)) = excluded.\(TableInfo.quote($0))" }
            sql += " ON CONFLICT(\(keyNames.map(TableInfo.quote).joined(separator: ", "))) "
                + (updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", "))
        }
        return sql
    }
}
