import ObservableStoreCore
import StoreSQLite

// Statements a caller brings as text (storectl's `query` and `--where`): inspected, and run with named arguments.
extension SQLiteTransaction {
    /// Whether `sql` is one statement that leaves the database unchanged (`sqlite3_stmt_readonly`).
    /// Throws for invalid SQL or for more than one statement.
    public func isReadOnlyStatement(_ sql: String) throws -> Bool {
        try checkActive()
        return try StoreError.wrapping { try connection.prepare(sql).isReadOnly }
    }

    /// The names of the named parameters (`:name`, `@name`, `$name`) of `sql`, without their prefix.
    public func parameterNames(_ sql: String) throws -> [String] {
        try checkActive()
        return try StoreError.wrapping {
            let statement = try connection.prepare(sql)
            return (0..<statement.parameterCount).compactMap { statement.parameterName(at: $0 + 1).map { String($0.dropFirst()) } }
        }
    }

    /// Runs one statement with named arguments (`:name` → `arguments["name"]`) and returns every row
    /// it produces (a query's rows, or those of `RETURNING`).
    public func fetchRows(_ sql: String, named arguments: [String: any DatabaseValueConvertible]) throws -> [Row] {
        try checkActive()
        let statement = try StoreError.wrapping { try connection.prepare(sql) }
        try inspect(statement)
        let marker = capture?.mark()
        do {
            return try bindAndFetch(statement, named: arguments)
        } catch {
            if let marker { capture?.rollback(to: marker) }
            throw error
        }
    }

    /// Runs one query with named arguments (as ``fetchRows(_:named:)``) and calls `body` with each row as it is
    /// stepped, read in place: no row is kept. For output that streams (storectl's `list`, `query`, `get`).
    /// Errors from `body` stop the query and are rethrown.
    package func forEachRow(
        _ sql: String, named arguments: [String: any DatabaseValueConvertible], _ body: (RowCursor) throws -> Void
    ) throws {
        try checkActive()
        let statement = try StoreError.wrapping { try connection.prepare(sql) }
        try inspect(statement)
        let marker = capture?.mark()
        do {
            try bind(statement, named: arguments)
            let cursor = RowCursor(statement)
            while try StoreError.wrapping({ try statement.step() }) { try body(cursor) }
        } catch {
            if let marker { capture?.rollback(to: marker) }
            throw error
        }
    }

    private func bindAndFetch(_ statement: Statement, named arguments: [String: any DatabaseValueConvertible]) throws -> [Row] {
        try bind(statement, named: arguments)
        return try StoreError.wrapping { try RowFetcher.rows(of: statement) }
    }

    /// Binds each `:name` parameter of `statement` to `arguments["name"]`; throws for a positional parameter or a
    /// name without a value.
    private func bind(_ statement: Statement, named arguments: [String: any DatabaseValueConvertible]) throws {
        try StoreError.wrapping {
            for index in 0..<statement.parameterCount {
                guard let name = statement.parameterName(at: index + 1) else {
                    throw StoreError(.invalidInput, "positional parameter ?\(index + 1) needs a name (:name)")
                }
                guard let value = arguments[String(name.dropFirst())] else {
                    throw StoreError(.invalidInput, "no value for parameter \(name)")
                }
                try statement.bind(value.databaseValue, at: index + 1)
            }
        }
    }
}
