/// A column named by a string: the ``Record/Columns`` of a record that declares no column type.
///
/// It is deliberately not `ExpressibleByStringLiteral`, so that `filter("x", …)` keeps choosing the string
/// forms of ``RecordQuery``; a record with typed columns declares `typealias Columns = CodingKeys`.
public struct ColumnName: CodingKey, Hashable, Sendable {
    /// The column's name.
    public let stringValue: String

    /// The column called `name`.
    public init(_ name: String) { stringValue = name }

    /// The column called `stringValue`.
    public init?(stringValue: String) { self.stringValue = stringValue }

    /// Always nil: columns have names, not positions.
    public var intValue: Int? { nil }

    /// Always nil: columns have names, not positions.
    public init?(intValue: Int) { nil }
}
