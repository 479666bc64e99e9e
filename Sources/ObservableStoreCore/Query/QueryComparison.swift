/// How a ``RecordQuery`` compares a column with a value (`RecordQuery.Comparison`).
public enum QueryComparison: String, Sendable {
    /// `=`
    case equal = "="
    /// `<>`
    case notEqual = "<>"
    /// `<`
    case lessThan = "<"
    /// `<=`
    case lessThanOrEqual = "<="
    /// `>`
    case greaterThan = ">"
    /// `>=`
    case greaterThanOrEqual = ">="
    /// `LIKE` (case-insensitive for ASCII, `%` and `_` wildcards)
    case like = "LIKE"
    /// `GLOB` (case-sensitive, `*` and `?` wildcards)
    case glob = "GLOB"
}
