/// A description of which records of one table to fetch, count or delete: filters with bound
/// values, order, limit, and keyset paging. A value; build it, then pass it to a ``Repository`` or a transaction
/// (``StoreTransaction``) of either engine.
///
/// For example:
///
/// ```swift
/// let page = RecordQuery<NodeVO>()
///     .filter("x", .greaterThan, 10.0)
///     .order(by: "updated_at", descending: true)
///     .limit(50)
/// let first = try nodes.fetchAll(page)
/// let next = try nodes.fetchAll(page.after(first.last!))   // keyset: stable while others insert
/// ```
public struct RecordQuery<R: Record>: Sendable {
    /// How a column is compared with a value.
    public typealias Comparison = QueryComparison

    package struct Condition: Sendable {
        package var sql: String
        package var arguments: [DatabaseValue]
        /// What the SQL says, for an engine that evaluates the condition on a row in memory; nil for
        /// `filter(sql:)` and the keyset condition, which only the database evaluates.
        package var predicate: QueryPredicate?
    }

    package struct Ordering: Sendable {
        package var column: String
        package var descending: Bool
    }

    package var conditions: [Condition] = []
    package var orderings: [Ordering] = []
    package var limitCount: Int?
    package var offsetCount: Int?
    package var afterRecord: R?

    /// Every record of the table.
    public init() {}

    /// Keeps records whose `column` compares to `value` as asked. `value` is bound, never spliced into SQL.
    public func filter(_ column: String, _ comparison: Comparison, _ value: some DatabaseValueConvertible) -> RecordQuery {
        let bound = value.databaseValue
        return adding(
            Condition(
                sql: "\(quoted(column)) \(comparison.rawValue) ?", arguments: [bound],
                predicate: .compare(column: column, comparison, bound)))
    }

    /// Keeps records whose `column` equals `value` (`IS NULL` when `value` is nil).
    public func filter(_ column: String, equals value: some DatabaseValueConvertible) -> RecordQuery {
        let bound = value.databaseValue
        if bound.isNull {
            return adding(Condition(sql: "\(quoted(column)) IS NULL", arguments: [], predicate: .isNull(column: column)))
        }
        return filter(column, .equal, value)
    }

    /// Keeps records whose `column` is one of `values` (none, when `values` is empty).
    public func filter(_ column: String, in values: [some DatabaseValueConvertible]) -> RecordQuery {
        guard !values.isEmpty else { return adding(Condition(sql: "0", arguments: [], predicate: .never)) }
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        let bound = values.map(\.databaseValue)
        return adding(
            Condition(
                sql: "\(quoted(column)) IN (\(marks))", arguments: bound, predicate: .oneOf(column: column, bound)))
    }

    /// Keeps records matching an SQL expression with `?` placeholders, e.g. `"x + y > ?"`.
    ///
    /// The expression is SQL written by the caller: pass user input only through `arguments`.
    public func filter(sql: String, arguments: [any DatabaseValueConvertible] = []) -> RecordQuery {
        adding(Condition(sql: "(\(sql))", arguments: arguments.map(\.databaseValue), predicate: nil))
    }

    /// Sorts by `column` (then by the previous orderings' ties, then by the primary key).
    public func order(by column: String, descending: Bool = false) -> RecordQuery {
        var copy = self
        copy.orderings.append(Ordering(column: column, descending: descending))
        return copy
    }

    /// At most `count` records.
    public func limit(_ count: Int) -> RecordQuery {
        var copy = self
        copy.limitCount = max(0, count)
        return copy
    }

    /// Skips the first `count` records. Prefer ``after(_:)`` for paging: offsets shift when others write.
    public func offset(_ count: Int) -> RecordQuery {
        var copy = self
        copy.offsetCount = max(0, count)
        return copy
    }

    /// The records that sort after `record` in this query's order (keyset paging).
    ///
    /// Uses the record's values of the order columns and its primary key, so pages stay stable while
    /// other writers insert. Order columns should be NOT NULL.
    public func after(_ record: R) -> RecordQuery {
        var copy = self
        copy.afterRecord = record
        return copy
    }

    private func adding(_ condition: Condition) -> RecordQuery {
        var copy = self
        copy.conditions.append(condition)
        return copy
    }

    /// The orderings actually used: the caller's, then the primary key as tie-breaker.
    package var effectiveOrderings: [Ordering] {
        if orderings.contains(where: { $0.column == R.primaryKey }) { return orderings }
        return orderings + [Ordering(column: R.primaryKey, descending: orderings.last?.descending ?? false)]
    }

    /// `WHERE …` (or "") and its arguments, including the keyset condition.
    package func whereClause() throws -> (sql: String, arguments: [DatabaseValue]) {
        var parts = conditions
        if let afterRecord {
            parts.append(try keysetCondition(after: afterRecord))
        }
        guard !parts.isEmpty else { return ("", []) }
        return (" WHERE " + parts.map(\.sql).joined(separator: " AND "), parts.flatMap(\.arguments))
    }

    /// `(a > ?) OR (a = ? AND b > ?) OR …` over the effective orderings.
    private func keysetCondition(after record: R) throws -> Condition {
        let row = try RowEncoder.encode(record)
        var alternatives: [String] = []
        var arguments: [DatabaseValue] = []
        let orderings = effectiveOrderings
        for (position, ordering) in orderings.enumerated() {
            var terms: [String] = []
            for earlier in orderings[..<position] {
                terms.append("\(quoted(earlier.column)) = ?")
                arguments.append(try value(of: earlier.column, in: row))
            }
            terms.append("\(quoted(ordering.column)) \(ordering.descending ? "<" : ">") ?")
            arguments.append(try value(of: ordering.column, in: row))
            alternatives.append("(" + terms.joined(separator: " AND ") + ")")
        }
        return Condition(sql: "(" + alternatives.joined(separator: " OR ") + ")", arguments: arguments, predicate: nil)
    }

    private func value(of column: String, in row: EncodedRow) throws -> DatabaseValue {
        guard let value = row.value(of: column) else {
            throw StoreError(.invalidInput, "keyset paging: \(R.self) has no value for order column \(column)")
        }
        return value
    }

    /// `ORDER BY … LIMIT … OFFSET …`.
    package func orderLimitClause() -> String {
        var sql = ""
        if !orderings.isEmpty || afterRecord != nil {
            sql += " ORDER BY "
                + effectiveOrderings.map { quoted($0.column) + ($0.descending ? " DESC" : "") }
                .joined(separator: ", ")
        }
        if let limitCount { sql += " LIMIT \(limitCount)" }
        if let offsetCount { sql += (limitCount == nil ? " LIMIT -1" : "") + " OFFSET \(offsetCount)" }
        return sql
    }
}
