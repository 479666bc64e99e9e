/// Typed forms of ``RecordQuery``'s filters and orders: a column is one of the record's ``Record/Columns``
/// (`.x`) or a key path into its ``Record/ColumnPaths`` (`\.x`), so a misspelled column does not compile.
/// Each calls the string form with the column's name: the same SQL, the same results.
///
/// For example:
///
/// ```swift
/// let right = RecordQuery<NodeVO>().filter(.x, .greaterThan, 12).order(by: .name)
/// let same = RecordQuery<NodeVO>().filter(\.x, .greaterThan, 12).order(by: \.name)
/// // RecordQuery<NodeVO>().filter(.z, .greaterThan, 12)   error: type 'NodeVO.CodingKeys' has no member 'z'
/// ```
extension RecordQuery {
    /// Keeps records whose `column` compares to `value` as asked. `value` is bound, never spliced into SQL.
    public func filter(_ column: R.Columns, _ comparison: Comparison, _ value: some DatabaseValueConvertible) -> RecordQuery {
        filter(column.stringValue, comparison, value)
    }

    /// Keeps records whose `column` equals `value` (`IS NULL` when `value` is nil).
    public func filter(_ column: R.Columns, equals value: some DatabaseValueConvertible) -> RecordQuery {
        filter(column.stringValue, equals: value)
    }

    /// Keeps records whose `column` is one of `values` (none, when `values` is empty).
    public func filter(_ column: R.Columns, in values: [some DatabaseValueConvertible]) -> RecordQuery {
        filter(column.stringValue, in: values)
    }

    /// Sorts by `column` (then by the previous orderings' ties, then by the primary key).
    public func order(by column: R.Columns, descending: Bool = false) -> RecordQuery {
        order(by: column.stringValue, descending: descending)
    }

    /// Keeps records whose column at `path` compares to `value`, a value of the column's type.
    public func filter<Value>(
        _ path: KeyPath<R.ColumnPaths, TypedColumn<Value>>, _ comparison: Comparison, _ value: Value
    ) -> RecordQuery {
        filter(R.columnPaths[keyPath: path].name, comparison, value)
    }

    /// Keeps records whose column at `path` equals `value` (`IS NULL` when `value` is nil).
    public func filter<Value>(_ path: KeyPath<R.ColumnPaths, TypedColumn<Value>>, equals value: Value?) -> RecordQuery {
        filter(R.columnPaths[keyPath: path].name, equals: value)
    }

    /// Keeps records whose column at `path` is one of `values` (none, when `values` is empty).
    public func filter<Value>(_ path: KeyPath<R.ColumnPaths, TypedColumn<Value>>, in values: [Value]) -> RecordQuery {
        filter(R.columnPaths[keyPath: path].name, in: values)
    }

    /// Sorts by the column at `path` (then by the previous orderings' ties, then by the primary key).
    public func order<Value>(by path: KeyPath<R.ColumnPaths, TypedColumn<Value>>, descending: Bool = false) -> RecordQuery {
        order(by: R.columnPaths[keyPath: path].name, descending: descending)
    }
}
