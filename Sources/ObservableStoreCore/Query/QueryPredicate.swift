/// One typed condition of a ``RecordQuery``, as data: what an engine needs to evaluate it on a row in memory
/// (the SQLite engine's observed values skip a commit whose rows cannot match without reading).
package enum QueryPredicate: Sendable, Equatable {
    /// `column <comparison> value`.
    case compare(column: String, QueryComparison, DatabaseValue)
    /// `column IS NULL`.
    case isNull(column: String)
    /// `column IN (values)`, values not empty.
    case oneOf(column: String, [DatabaseValue])
    /// Matches no row (`IN ()`).
    case never

    /// The column the predicate reads, if any.
    package var column: String? {
        switch self {
        case .compare(let column, _, _), .isNull(let column), .oneOf(let column, _): column
        case .never: nil
        }
    }
}
