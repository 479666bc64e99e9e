import ArgumentParser
import ObservableStore

/// `storectl query "SELECT …"`: any read-only query.
struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one read-only SQL query.",
        discussion: """
            Rows are printed as they are read, in constant memory. In table format the column widths come from
            the first 1000 rows; a longer value after them widens its own line.
            Examples:
              storectl query 'SELECT color, count(*) AS n FROM nodes GROUP BY color' --format csv
              storectl query 'SELECT * FROM nodes WHERE name = :n' --param n=Start
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The query: one statement that only reads.") var sql: String
    @Option(name: .customLong("param"), help: "A value for :name, as name=value (repeatable). Bound as text.") var parameters: [String] = []

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: false))
        defer { store.close() }
        let filter = try WhereOptions.parse(parameters.flatMap { ["--param", $0] })
        let printer = global.output.rowPrinter(progress: true)
        try store.withReadTransaction { tx in
            try WhereOptions.checkReadOnly(sql, what: "query", in: tx)
            if let missing = try tx.parameterNames(sql).first(where: { filter.values[$0] == nil }) {
                throw StoreError(.invalidInput, "the query uses :\(missing); pass --param \(missing)=VALUE")
            }
            do {
                try tx.forEachRow(sql, named: filter.values) { printer.print($0) }  // printed as stepped: nothing is held
            } catch let error as StoreError where error.code == .readOnly {
                // PostgreSQL: a write the text did not show (a function), refused by the READ ONLY transaction.
                throw CLIError.usage("query must only read; it would change the store (\(error.message))")
            } catch let error as StoreError
                where GlobalOptions.isPostgresURL(global.path) && (error.code == .invalidInput || error.code == .notFound)
            {
                // PostgreSQL checks the SQL when it runs it (SQLite when it prepares it, above): the same usage error.
                throw CLIError.usage("query: \(error.message)")
            }
        }
        try printer.finish(columnsIfEmpty: [])
    }
}
