/// How an engine's database compares the values of one column, as far as that can be told in memory: what lets an
/// observed query judge a commit's rows without reading (``QueryEvaluator``). Every answer is certain or nil; nil
/// means "ask the database", never a guess.
package protocol ColumnComparator: Sendable {
    /// `value` (a bound value, or a value of an encoded record) as the database compares it with this column's stored
    /// values; nil when the database would convert it in a way not modelled here.
    func comparable(_ value: DatabaseValue) -> DatabaseValue?
    /// The order of two values of this column under `ORDER BY` ascending (negative: `left` first); nil when unsure.
    func order(_ left: DatabaseValue, _ right: DatabaseValue) -> Int?
    /// Whether two non-NULL values of this column are equal under `=`; nil when unsure. Equality can be certain where
    /// order is not (text under a locale's collation).
    func isEqual(_ left: DatabaseValue, _ right: DatabaseValue) -> Bool?
}

extension ColumnComparator {
    /// Equal when the order says so.
    package func isEqual(_ left: DatabaseValue, _ right: DatabaseValue) -> Bool? {
        order(left, right).map { $0 == 0 }
    }
}
