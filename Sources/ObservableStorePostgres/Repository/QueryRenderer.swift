#if PostgreSQL
import ObservableStoreCore

/// A core ``RecordQuery`` as PostgreSQL SQL. The core renders queries for SQLite; here each typed condition is rendered
/// again from what it says: values numbered `$n` and cast to their column's type (``TableColumns``), `LIKE` as
/// `ILIKE` (SQLite's LIKE ignores ASCII case), `GLOB` as a case-sensitive `LIKE` with its wildcards translated (a
/// character class `[…]` is refused), no `LIMIT -1`. A `filter(sql:)` expression keeps its text, its `?` numbered.
struct QueryRenderer<R: Record> {
    let query: RecordQuery<R>
    let columns: TableColumns
    /// The values bound so far, in parameter order.
    private(set) var values: [DatabaseValue] = []

    init(_ query: RecordQuery<R>, columns: TableColumns) {
        self.query = query
        self.columns = columns
    }

    /// ` WHERE …` (or ""), the keyset condition included.
    mutating func whereClause() throws -> String {
        var parts: [String] = []
        for condition in query.conditions {
            parts.append(try render(condition))
        }
        if let record = query.afterRecord {
            parts.append(try keyset(after: record))
        }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }

    /// ` ORDER BY … LIMIT … OFFSET …`.
    func orderLimitClause() -> String {
        var sql = ""
        if !query.orderings.isEmpty || query.afterRecord != nil {
            sql += " ORDER BY "
                + query.effectiveOrderings.map { quoted($0.column) + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
        }
        if let limit = query.limitCount { sql += " LIMIT \(limit)" }
        if let offset = query.offsetCount { sql += " OFFSET \(offset)" }
        return sql
    }

    /// `value` bound for `column`: its placeholder.
    private mutating func bind(_ value: DatabaseValue, for column: String) -> String {
        values.append(columns.bound(value, for: column))
        return columns.placeholder(values.count, for: column)
    }

    private mutating func render(_ condition: RecordQuery<R>.Condition) throws -> String {
        guard let predicate = condition.predicate else {
            let numbered = Placeholders.numbered(condition.sql, from: values.count + 1)
            values += condition.arguments
            return numbered.sql
        }
        switch predicate {
        case .never:
            return "false"
        case .isNull(let column):
            return "\(quoted(column)) IS NULL"
        case .oneOf(let column, let candidates):
            return "\(quoted(column)) IN (" + candidates.map { bind($0, for: column) }.joined(separator: ", ") + ")"
        case .compare(let column, .like, let pattern):
            return "\(text(of: column)) ILIKE \(bindText(pattern)) ESCAPE ''"
        case .compare(let column, .glob, let pattern):
            return "\(text(of: column)) LIKE \(bindText(.text(try QueryRenderer.likePattern(glob: pattern, column: column)))) ESCAPE '\\'"
        case .compare(let column, let comparison, let value):
            return "\(quoted(column)) \(comparison.rawValue) \(bind(value, for: column))"
        }
    }

    /// `column` as text, for LIKE.
    private func text(of column: String) -> String {
        columns.isText(column) ? quoted(column) : "CAST(\(quoted(column)) AS text)"
    }

    private mutating func bindText(_ value: DatabaseValue) -> String {
        values.append(value)
        return "$\(values.count)::text"
    }

    /// `(a > $1) OR (a = $2 AND b > $3) OR …` over the effective orderings, with `record`'s values.
    private mutating func keyset(after record: R) throws -> String {
        let row = try RowEncoder.encode(record)
        var alternatives: [String] = []
        let orderings = query.effectiveOrderings
        for (position, ordering) in orderings.enumerated() {
            var terms: [String] = []
            for earlier in orderings[..<position] {
                terms.append("\(quoted(earlier.column)) = \(bind(try value(of: earlier.column, in: row), for: earlier.column))")
            }
            let comparison = ordering.descending ? "<" : ">"
            terms.append("\(quoted(ordering.column)) \(comparison) \(bind(try value(of: ordering.column, in: row), for: ordering.column))")
            alternatives.append("(" + terms.joined(separator: " AND ") + ")")
        }
        return "(" + alternatives.joined(separator: " OR ") + ")"
    }

    private func value(of column: String, in row: EncodedRow) throws -> DatabaseValue {
        guard let value = row.value(of: column) else {
            throw StoreError(.invalidInput, "keyset paging: \(R.self) has no value for order column \(column)")
        }
        return value
    }

    /// A GLOB pattern (`*`, `?`) as a LIKE pattern with `\` escapes; a character class is refused.
    static func likePattern(glob pattern: DatabaseValue, column: String) throws -> String {
        guard case .text(let glob) = pattern else {
            throw StoreError(.invalidInput, "GLOB on \(column): the pattern must be text")
        }
        var like = ""
        for character in glob {
            switch character {
            case "*": like += "%"
            case "?": like += "_"
            case "%", "_", "\\": like += "\\" + String(character)
            case "[", "]":
                throw StoreError(
                    .invalidInput,
                    "GLOB on \(column): character classes ([…]) are not supported on PostgreSQL; use filter(sql:) with ~")
            default: like.append(character)
            }
        }
        return like
    }
}
#endif
