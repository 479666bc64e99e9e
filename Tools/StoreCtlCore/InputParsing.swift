import ArgumentParser
import Foundation
import ObservableStore

/// storectl's parsers of user input, one entry point each, for the fuzz harness (`Tools/store-fuzz`) and the
/// tests. Each one reads what the command line would give it and throws what storectl would report.
package enum InputParsing {
    /// Parses one JSON value and returns it as compact JSON text.
    package static func json(_ text: String) throws -> String {
        do {
            return try JSONParser.parse(text).compactText
        } catch {
            throw StoreError(.invalidInput, "line \(error.line) column \(error.column): \(error.message)")
        }
    }

    /// Reads records for `table` from `data` as `storectl insert` does (`format` nil: guessed from the text).
    package static func records(_ data: Data, format: String?, table: String, in tx: SQLiteTransaction) throws
        -> [(line: Int, columns: [String], values: [DatabaseValue])]
    {
        let chosen = try format.map { name in
            guard let format = RecordInput.Format(rawValue: name) else { throw CLIError.usage("unknown format \(name)") }
            return format
        }
        let table = try TableInfo.load(table, in: tx)
        let input = try RecordInput.reading(data, source: "input", format: chosen, table: table)
        var records: [(line: Int, columns: [String], values: [DatabaseValue])] = []
        var record = InputRecord()
        while try input.reader.next(into: &record) {
            records.append((record.line, record.columns.map { table.columns[$0].name }, record.values))
        }
        return records
    }

    /// The ` WHERE (…)` clause that `--where expression` and `--param name=value` make for `table`, and the
    /// values bound by name.
    package static func whereClause(_ expression: String, parameters: [String], table: String, in tx: SQLiteTransaction) throws
        -> (sql: String, values: [String: any DatabaseValueConvertible])
    {
        let options: WhereOptions
        do {
            options = try WhereOptions.parse(["--where=\(expression)"] + parameters.map { "--param=\($0)" })
        } catch {
            throw CLIError.usage(WhereOptions.message(for: error))
        }
        return (try options.clause(for: TableInfo.load(table, in: tx), in: tx), options.values)
    }

    /// The columns and typed values that `--set COL=VALUE` options give for `table`.
    package static func assignments(_ assignments: [String], table: String, in tx: SQLiteTransaction) throws
        -> (columns: [String], values: [DatabaseValue])
    {
        try Update.parse(assignments, for: TableInfo.load(table, in: tx))
    }

    /// A KEY argument as a value of `table`'s key column.
    package static func key(_ text: String, table: String, in tx: SQLiteTransaction) throws -> DatabaseValue {
        try TableInfo.load(table, in: tx).keyValue(text)
    }
}

/// Runs storectl with the process's arguments and exits (the `storectl` executable's only line).
@MainActor
package func runStoreCtl() {
    StoreCtl.main()
}
