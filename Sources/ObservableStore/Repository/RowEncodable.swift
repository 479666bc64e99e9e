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

    init(capacity: Int, only: [String]? = nil) {
        self.only = only
        row.columns.reserveCapacity(capacity)
        row.values.reserveCapacity(capacity)
    }

    /// Writes `value` to `column` (nil is NULL).
    public mutating func encode<Value: DatabaseValueConvertible>(_ value: Value?, _ column: String) {
        if let only, !only.contains(column) { return }
        row.columns.append(column)
        row.values.append(value?.databaseValue ?? .null)
    }
}
