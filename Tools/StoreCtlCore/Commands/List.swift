import ArgumentParser
import ObservableStore

/// `storectl list TABLE`: records, filtered, ordered and paged.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a table's records.",
        discussion: """
            Examples:
              storectl list nodes --where 'x > :min' --param min=10 --order -updated_at --limit 20
              storectl list nodes --order name --limit 20 --after 42     # the next page, after record 42
            Rows are printed as they are read, in constant memory. In table format the column widths come from
            the first 1000 rows; a longer value after them widens its own line.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var filter: WhereOptions
    @Argument(help: "The table.") var table: String
    @Option(name: .long, parsing: .unconditional, help: "Sort by this column; a leading '-' sorts descending. Ties break by primary key.")
    var order: String?
    @Option(name: .long, help: "At most this many records.") var limit: Int?
    @Option(name: .long, help: "Keyset paging: the records after the one with this primary key, in the chosen order.") var after: String?
    @Flag(name: .long, help: "Apply pending migrations first.") var migrate = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: migrate))
        defer { store.close() }
        let printer = global.output.rowPrinter(progress: true)
        let columns = try store.withReadTransaction { tx -> [String] in
            let info = try TableInfo.load(table, in: tx)
            let key = try info.keyColumn()
            var sql = "SELECT * FROM \(TableInfo.quote(table))" + (try filter.clause(for: info, in: tx))
            var values = filter.values
            let descending = order?.hasPrefix("-") ?? false
            let orderColumn = order.map { descending ? String($0.dropFirst()) : $0 }
            if let orderColumn, info.column(named: orderColumn) == nil {
                throw CLIError.usage("--order: no column \(orderColumn) in \(table)")
            }
            let comparison = descending ? "<" : ">"
            if let after {
                let keyValue = try info.keyValue(after)
                values["__after_key"] = keyValue
                var condition = "\(TableInfo.quote(key.name)) \(comparison) :__after_key"
                if let orderColumn, orderColumn != key.name {
                    guard
                        let anchor = try tx.fetchValue(
                            "SELECT \(TableInfo.quote(orderColumn)) FROM \(TableInfo.quote(table)) WHERE \(TableInfo.quote(key.name)) = ?",
                            [keyValue])
                    else { throw StoreError(.notFound, "--after: record \(table)/\(after) not found") }
                    values["__after_value"] = anchor
                    let column = TableInfo.quote(orderColumn)
                    condition = "(\(column) \(comparison) :__after_value OR (\(column) = :__after_value AND \(condition)))"
                }
                sql += (filter.expression == nil ? " WHERE " : " AND ") + condition
            }
            let orderings = [orderColumn, key.name].compactMap { $0 }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            sql += " ORDER BY " + orderings.map { TableInfo.quote($0) + (descending ? " DESC" : "") }.joined(separator: ", ")
            if let limit { sql += " LIMIT \(limit)" }
            try tx.forEachRow(sql, named: values) { printer.print($0) }  // printed as stepped: nothing is held
            return info.columns.map(\.name)
        }
        try printer.finish(columnsIfEmpty: columns)
    }
}
