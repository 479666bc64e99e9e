import ArgumentParser
import ObservableStore

/// `storectl schema [TABLE]`: columns and indexes, or the raw DDL with --sql.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a table's columns and indexes (all tables without TABLE).",
        discussion: "Example:\n  storectl schema nodes\n  storectl schema --sql > Migrations/schema.sql")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The table; every table when omitted.") var table: String?
    @Flag(name: .long, help: "Print the CREATE statements instead.") var sql = false

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: false))
        defer { store.close() }
        if sql {
            guard let table else { return global.output.text(try store.schemaSQL()) }
            let ddl = try store.withReadTransaction { tx in
                _ = try TableInfo.load(table, in: tx)
                return try tx.createStatements(of: table)
            }
            return global.output.text(ddl)
        }
        let rows = try store.withReadTransaction { tx -> [[DatabaseValue]] in
            let names = try table.map { [$0] } ?? TableInfo.userTables(in: tx)
            var rows: [[DatabaseValue]] = []
            for name in names {
                let info = try TableInfo.load(name, in: tx)
                let indexes = try tx.indexNames(of: name).joined(separator: ",")
                for column in info.columns {
                    rows.append([
                        .text(name), .text(column.name), .text(column.type), .integer(column.primaryKeyPosition > 0 ? 1 : 0),
                        .integer(column.notNull ? 1 : 0), column.defaultValue.map(DatabaseValue.text) ?? .null, .text(indexes),
                    ])
                }
            }
            return rows
        }
        if global.output.format == .json || global.output.format == .ndjson {
            // Booleans as JSON booleans.
            let lines = rows.map { row -> String in
                "{\"table\":\(JSONText.value(row[0])),\"column\":\(JSONText.value(row[1])),\"type\":\(JSONText.value(row[2])),"
                    + "\"pk\":\(row[3] == .integer(1)),\"not_null\":\(row[4] == .integer(1)),\"default\":\(JSONText.value(row[5])),"
                    + "\"indexes\":\(JSONText.value(row[6]))}"
            }
            global.output.write(global.output.format == .json ? "[" + lines.joined(separator: ",\n") + "]\n" : lines.map { $0 + "\n" }.joined())
        } else {
            try global.output.rows(["table", "column", "type", "pk", "not_null", "default", "indexes"], rows)
        }
    }
}
