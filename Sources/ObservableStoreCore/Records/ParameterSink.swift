/// A prepared statement whose parameters ``RowWriter`` binds a record's values into directly, without
/// collecting them first (the SQLite engine's `Statement`). The caller has started a binding round.
package protocol ParameterSink: AnyObject {
    /// Binds `value` to parameter `index` (1-based), outside the round's bookkeeping.
    func bind(_ value: DatabaseValue, at index: Int32) throws
    /// Binds `value` to parameter `index` within the binding round.
    func bindInRound(_ value: DatabaseValue, at index: Int32) throws
    /// Binds text within the binding round.
    func bindTextInRound(_ string: String, at index: Int32) throws
    /// Binds a number without boxing it in a ``DatabaseValue``.
    func bind(_ value: Double, at index: Int32) throws
    /// Binds an integer without boxing it in a ``DatabaseValue``.
    func bind(_ value: Int64, at index: Int32) throws
}
