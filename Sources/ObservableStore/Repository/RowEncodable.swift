import Foundation
import StoreSQLite

/// A record that writes its columns itself, without `Encodable`'s containers: inserts and updates run
/// faster. ``NodeVO`` and ``UserInfo`` conform; types that do not are encoded with `Encodable`. Write the
/// same columns, with the same values, as the type's `Encodable` conformance does.
///
/// For example:
///
/// ```swift
/// extension Note: RowEncodable {
///     func encode(to row: inout RowWriter) {
///         row.encode(id, "id")
///         row.encode(title, "title")
///     }
/// }
/// ```
public protocol RowEncodable {
    /// Writes the record's columns into `row`.
    func encode(to row: inout RowWriter)
}

/// The columns a ``RowEncodable`` record writes, in order.
public struct RowWriter {
    var row = EncodedRow()
    /// When set, the only columns kept; the others are skipped before their value is converted.
    let only: [String]?
    /// The writer's recently formatted dates, when encoding inside a write.
    let timestamps: TimestampCache?

    init(capacity: Int, only: [String]? = nil, timestamps: TimestampCache? = nil) {
        self.only = only
        self.timestamps = timestamps
        row.columns.reserveCapacity(capacity)
        row.values.reserveCapacity(capacity)
    }

    /// Writes `value` to `column` (nil is NULL).
    public mutating func encode<Value: DatabaseValueConvertible>(_ value: Value?, _ column: String) {
        if let only, !only.contains(column) { return }
        row.columns.append(column)
        row.values.append(value?.databaseValue ?? .null)
    }

    /// Writes the date `value` to `column` (nil is NULL), as its ``DatabaseValueConvertible`` text; a date in
    /// the same millisecond as one just written reuses that text.
    public mutating func encode(_ value: Date?, _ column: String) {
        if let only, !only.contains(column) { return }
        row.columns.append(column)
        guard let value else { return row.values.append(.null) }
        row.values.append(.text(timestamps?.text(for: value) ?? Timestamp.format(value)))
    }
}
