/// A column of a record and the type of its values: a property of the record's ``Record/ColumnPaths``, so
/// that a key-path filter names only real columns and compares them with values of their type.
///
/// For example:
///
/// ```swift
/// let right = RecordQuery<NodeVO>().filter(\.x, .greaterThan, 12).order(by: \.name)
/// // RecordQuery<NodeVO>().filter(\.x, .greaterThan, "12")   does not compile: x holds a Double
/// // RecordQuery<NodeVO>().filter(\.area, .greaterThan, 12)  does not compile: no column `area`
/// ```
public struct TypedColumn<Value: DatabaseValueConvertible>: Sendable, Hashable {
    /// The column's name in the table.
    public let name: String

    /// The column called `name`.
    public init(_ name: String) { self.name = name }

    /// The column of `key` (a record's `CodingKeys` case).
    public init(_ key: some CodingKey) { name = key.stringValue }
}

/// The ``Record/ColumnPaths`` of a record without key-path filters: it has no properties, so no key path
/// into it compiles.
public struct NoColumnPaths: Sendable {
    /// The empty set of column paths.
    public init() {}
}
