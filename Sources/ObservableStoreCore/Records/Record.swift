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
///     typealias Key = Int64
///     typealias Columns = CodingKeys
///     var id: Int64?
///     var title: String
///     enum CodingKeys: String, CodingKey { case id, title }
///     mutating func didInsert(rowID: Int64) { id = rowID }
/// }
///
/// let titled = RecordQuery<Note>().filter(.title, equals: "Groceries")   // `.titel` does not compile
/// ```
///
/// An `Identifiable` record whose `ID` is ``DatabaseValueConvertible`` needs no `Key`: it is its `ID`.
public protocol Record: Codable, Sendable {
    /// The type of the primary key value, e.g. `Int64` or `String`; the `ID` of an `Identifiable` record.
    associatedtype Key: DatabaseValueConvertible
    /// The record's columns, for typed filters, orders and column lists (`RecordQuery<NodeVO>().order(by: .name)`):
    /// usually its `CodingKeys`. ``ColumnName`` (any name, given as a string) when the type does not say.
    associatedtype Columns: CodingKey = ColumnName
    /// A type with one ``TypedColumn`` property per column, the root of key-path filters
    /// (`RecordQuery<NodeVO>().filter(\.x, .greaterThan, 12)`); ``NoColumnPaths`` (no key-path filters) by default.
    associatedtype ColumnPaths: Sendable = NoColumnPaths

    /// The table's name.
    static var tableName: String { get }
    /// The primary key column; "id" unless the type says otherwise.
    static var primaryKey: String { get }
    /// The columns to select when fetching, or nil (the default) for all of them.
    static var columns: [String]? { get }

    /// The value whose properties key-path filters name: `filter(\.x, …)` reads `columnPaths.x`.
    static var columnPaths: ColumnPaths { get }

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

extension Record where ColumnPaths == NoColumnPaths {
    /// No column paths: the record has no key-path filters.
    public static var columnPaths: NoColumnPaths { NoColumnPaths() }
}

extension Record where Self: Identifiable, ID: DatabaseValueConvertible {
    /// The record's `ID`: an `Identifiable` record is fetched and deleted by its `id`.
    public typealias Key = ID
}

/// Quotes an SQL identifier: `name` → `"name"`, doubling embedded quotes.
package func quoted(_ identifier: String) -> String {
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
