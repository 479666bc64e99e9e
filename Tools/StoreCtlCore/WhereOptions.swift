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
    func clause(for table: TableInfo, in tx: any CommandTransaction) throws -> String {
        guard let expression else { return "" }
        try WhereOptions.checkSelfContained(expression)
        let sql = " WHERE (\(expression))"
        try WhereOptions.checkReadOnly("SELECT count(*) FROM \(TableInfo.quote(table.name))" + sql, what: "--where", in: tx)
        let missing = try tx.parameterNames("SELECT 1 FROM \(TableInfo.quote(table.name))" + sql).filter { values[$0] == nil }
        if let name = missing.first { throw CLIError.usage("--where uses :\(name); pass --param \(name)=VALUE") }
        return sql
    }

    /// Refuses an expression that could reach outside its own parentheses: a comment (it would hide what
    /// storectl appends, such as `--after`'s condition), a `;`, a NUL, an unterminated quote, or a `)` that
    /// closes a parenthesis it did not open. Quoted strings and identifiers may hold anything.
    static func checkSelfContained(_ expression: String) throws {
        func refuse(_ problem: String) -> StoreError { CLIError.usage("--where: \(problem); pass one SQL expression") }
        let scalars = Array(expression.unicodeScalars)
        var depth = 0
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar {
            case "'", "\"", "`", "[":
                guard let end = endOfQuote(scalars, from: index) else { throw refuse("unterminated \(scalar) quote") }
                index = end
            case "$", "@", ":", "#":
                index = endOfVariable(scalars, from: index)
            case "-" where next == "-", "/" where next == "*":
                throw refuse("comments are not allowed")
            case ";":
                throw refuse("';' is not allowed")
            case "\0":
                throw refuse("a NUL character is not allowed")
            case "(":
                depth += 1
            case ")":
                depth -= 1
                guard depth >= 0 else { throw refuse("')' closes a parenthesis the expression did not open") }
            default:
                break
            }
            index += 1
        }
        guard depth == 0 else { throw refuse("a '(' is not closed") }
    }

    /// The index of the character that ends the quoted text opening at `start` (`'…'`, `"…"`, `` `…` `` with
    /// doubled quotes inside, or `[…]`); nil when it never ends.
    private static func endOfQuote(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        let closing: Unicode.Scalar = scalars[start] == "[" ? "]" : scalars[start]
        var position = start + 1
        while position < scalars.count {
            if scalars[position] == closing {
                let doubled = closing != "]" && position + 1 < scalars.count && scalars[position + 1] == closing
                guard doubled else { return position }
                position += 1
            }
            position += 1
        }
        return nil
    }

    /// The index of the last character of the parameter name opening at `start`, read as SQLite's tokenizer
    /// reads it: name characters and `::`, then an optional Tcl-style `(…)` suffix that may hold quotes.
    private static func endOfVariable(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value >= 0x80 || scalar == "_" || scalar == "$" || ("0"..."9").contains(scalar)
                || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        }
        var position = start + 1
        var nameLength = 0
        while position < scalars.count {
            let scalar = scalars[position]
            if isNameCharacter(scalar) {
                nameLength += 1
            } else if scalar == "(", nameLength > 0 {
                while position < scalars.count, scalars[position] != ")", !scalars[position].properties.isWhitespace {
                    position += 1
                }
                return min(position, scalars.count - 1)
            } else if scalar == ":", position + 1 < scalars.count, scalars[position + 1] == ":" {
                position += 1
            } else {
                break
            }
            position += 1
        }
        return position - 1
    }

    /// Refuses SQL that is not exactly one read-only statement.
    static func checkReadOnly(_ sql: String, what: String, in tx: any CommandTransaction) throws {
        let readOnly: Bool
        do {
            readOnly = try tx.isReadOnlyStatement(sql)
        } catch let error as StoreError {
            throw CLIError.usage("\(what): \(error.message)")
        }
        guard readOnly else { throw CLIError.usage("\(what) must only read; it would change the store") }
    }
}
