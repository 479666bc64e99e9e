import ArgumentParser
import ObservableStore

/// `--where EXPR` and its `--param name=value` bindings: one read-only SQL expression, never a statement.
struct WhereOptions: ParsableArguments {
    @Option(name: .customLong("where"), help: "One SQL expression selecting records, e.g. 'x > :min'. Values go in --param.")
    var expression: String?

    @Option(name: .customLong("param"), help: "A value for :name in --where or a query, as name=value (repeatable). Bound as text.")
    var parameters: [String] = []

    func validate() throws {
        for parameter in parameters where !parameter.contains("=") || parameter.hasPrefix("=") {
            throw ValidationError("--param '\(parameter)': expected name=value")
        }
    }

    /// The bound values by name.
    var values: [String: any DatabaseValueConvertible] {
        var values: [String: any DatabaseValueConvertible] = [:]
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(parts[0])] = String(parts.count > 1 ? parts[1] : "")
        }
        return values
    }

    /// ` WHERE (EXPR)` for `table`, after checking that it is one read-only expression whose
    /// parameters all have values; "" without --where.
    func clause(for table: TableInfo, in tx: Transaction) throws -> String {
        guard let expression else { return "" }
        let sql = " WHERE (\(expression))"
        try WhereOptions.checkReadOnly("SELECT count(*) FROM \(TableInfo.quote(table.name))" + sql, what: "--where", in: tx)
        let missing = try tx.parameterNames("SELECT 1 FROM \(TableInfo.quote(table.name))" + sql).filter { values[$0] == nil }
        if let name = missing.first { throw CLIError.usage("--where uses :\(name); pass --param \(name)=VALUE") }
        return sql
    }

    /// Refuses SQL that is not exactly one read-only statement.
    static func checkReadOnly(_ sql: String, what: String, in tx: Transaction) throws {
        let readOnly: Bool
        do {
            readOnly = try tx.isReadOnlyStatement(sql)
        } catch let error as StoreError {
            throw CLIError.usage("\(what): \(error.message)")
        }
        guard readOnly else { throw CLIError.usage("\(what) must only read; it would change the store") }
    }
}
