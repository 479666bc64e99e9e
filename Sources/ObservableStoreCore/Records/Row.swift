
/// One row of a raw SQL query: column names and their values, in order.
///
/// For example:
///
/// ```swift
/// let rows = try store.read { try $0.fetchRows("SELECT name, x FROM nodes WHERE x > ?", [1.0]) }
/// let name: String? = rows.first?.value("name")
/// ```
public struct Row: Sendable, Hashable {
    /// The column names, in result order.
    public let columns: [String]
    /// The values, in result order.
    public let values: [DatabaseValue]

    /// Makes a row from column names and values of the same count.
    public init(columns: [String], values: [DatabaseValue]) {
        precondition(columns.count == values.count, "a row needs one value per column")
        self.columns = columns
        self.values = values
    }

    /// The value of the first column called `column`, or nil when there is no such column.
    public subscript(_ column: String) -> DatabaseValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    /// The value at `index` (0-based).
    public subscript(_ index: Int) -> DatabaseValue { values[index] }

    /// The value of `column` converted to `T`, or nil when absent, NULL or of another type.
    public func value<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) -> T? {
        self[column].flatMap { T.fromDatabaseValue($0) }
    }
}
