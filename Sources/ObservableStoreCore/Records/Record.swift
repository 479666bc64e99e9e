import Foundation

/// A `Codable` type stored as one row of one table.
///
/// Stored properties map to columns through the type's `CodingKeys` (give snake_case names there).
/// Values map as: integers and `Bool` → INTEGER, `Double`/`Float` → REAL, `String` → TEXT,
/// `Data` → BLOB, `Date` → TEXT (RFC 3339 UTC, milliseconds), `UUID` → TEXT, `nil` → NULL,
/// single-value `Codable` types (e.g. `enum Color: String`) → their single value, and anything
/// else (arrays, nested structs) → JSON TEXT.
///
/// For example:
///
/// ```swift
/// struct Note: Record {
///     static let tableName = "notes"
///     var id: Int64?
///     var title: String
///     mutating func didInsert(rowID: Int64) { id = rowID }
/// }
/// ```
public protocol Record: Codable, Sendable {
    /// The type of the primary key value, e.g. `Int64` or `String`.
    associatedtype Key: DatabaseValueConvertible

    /// The table's name.
    static var tableName: String { get }
    /// The primary key column; "id" unless the type says otherwise.
    static var primaryKey: String { get }
    /// The columns to select when fetching, or nil (the default) for all of them.
    static var columns: [String]? { get }

    /// Called after an insert with the row's rowid: set an auto-assigned integer key here.
    mutating func didInsert(rowID: Int64)
}

extension Record {
    /// "id".
    public static var primaryKey: String { "id" }
    /// All columns.
    public static var columns: [String]? { nil }
    /// Does nothing.
    public mutating func didInsert(rowID: Int64) {}
}

/// Quotes an SQL identifier: `name` → `"name"`, doubling embedded quotes.
package func quoted(_ identifier: String) -> String {
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
