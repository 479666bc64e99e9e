#if PostgreSQL
import ObservableStoreCore
import StorePostgres

// Statements a caller brings as text (storectl's `query` and `--where`): inspected, and run with named arguments,
// with the names and signatures of the SQLite engine's `SQLiteTransaction`.
extension PostgresTransaction {
    /// The statements that only read: the first keyword of a statement ``isReadOnlyStatement(_:)`` accepts.
    static let readingKeywords: Set<String> = ["SELECT", "WITH", "VALUES", "TABLE", "SHOW"]
    /// Keywords that make a `WITH` statement write (a data-modifying common table expression).
    static let writingKeywords: Set<String> = ["INSERT", "UPDATE", "DELETE", "MERGE"]

    /// Whether `sql` is one statement that only reads: it starts with `SELECT`, `WITH`, `VALUES`, `TABLE` or `SHOW`,
    /// and holds no `INSERT`, `UPDATE`, `DELETE` or `MERGE` outside literals. Throws
    /// ``/ObservableStoreCore/StoreError/Code/invalidInput`` for more than one statement.
    ///
    /// PostgreSQL has no equivalent of `sqlite3_stmt_readonly`, so this reads the text; a function that writes is
    /// not seen. Run such SQL in ``PostgresStore/read(_:)`` (READ ONLY), where the server refuses any write with
    /// ``/ObservableStoreCore/StoreError/Code/readOnly``.
    public func isReadOnlyStatement(_ sql: String) throws -> Bool {
        try checkActive()
        guard !Placeholders.hasSeveralStatements(sql) else {
            throw StoreError(.invalidInput, "more than one statement: \(sql)")
        }
        let words = Placeholders.keywords(sql)
        guard let first = words.first, PostgresTransaction.readingKeywords.contains(first) else { return false }
        return !words.contains { PostgresTransaction.writingKeywords.contains($0) }
    }

    /// The names of the named parameters (`:name`) of `sql`, without their prefix, in order of first use
    /// (`::type` casts, literals, quoted identifiers and comments are not parameters).
    public func parameterNames(_ sql: String) throws -> [String] {
        try checkActive()
        return Placeholders.namedParameters(sql).names
    }

    /// Runs one statement with named arguments (`:name` → `arguments["name"]`) and returns every row it produces
    /// (a query's rows, or those of `RETURNING`). Throws ``/ObservableStoreCore/StoreError/Code/invalidInput`` when
    /// a parameter has no value.
    ///
    /// A text argument goes in as a constant of no type yet (a dollar-quoted literal), which PostgreSQL types by its
    /// use, as SQLite's column affinity converts: `x > :min` with `min` = `"1"` compares numbers. Other values are
    /// bound (`$n`).
    public func fetchRows(_ sql: String, named arguments: [String: any DatabaseValueConvertible]) throws -> [Row] {
        try perform(namedStatement(sql, arguments))
    }

    /// Runs one statement with named arguments and returns every row it produces, as the blocking form does.
    nonisolated(nonsending) public func fetchRows(_ sql: String, named arguments: [String: any DatabaseValueConvertible]) async throws
        -> [Row]
    {
        try await perform(namedStatement(sql, arguments))
    }

    private func namedStatement(_ sql: String, _ arguments: [String: any DatabaseValueConvertible]) throws
        -> TransactionStatement<[Row]>
    {
        let names = Placeholders.namedParameters(sql).names
        var values: [DatabaseValue] = []
        var replacements: [String: String] = [:]
        for name in names {
            guard let value = arguments[name]?.databaseValue else { throw StoreError(.invalidInput, "no value for parameter :\(name)") }
            if case .text(let text) = value {
                replacements[name] = Placeholders.dollarQuoted(text)
            } else {
                values.append(value)
                replacements[name] = "$\(values.count)"
            }
        }
        let tableColumns = tableColumns
        let changesSchema = PostgresTransaction.mayChangeSchema(sql)
        return TransactionStatement(sql: Placeholders.namedParameters(sql) { name, _ in replacements[name] ?? "" }.sql, values: values) {
            if changesSchema { tableColumns.removeAll() }
            return $0.namedRows
        }
    }
}
#endif
