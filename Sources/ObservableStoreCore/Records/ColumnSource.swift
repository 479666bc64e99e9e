import Foundation

/// Where a row's columns are read from: an engine's statement positioned on a row (the SQLite engine's `Statement`), or a ``Row``
/// value. ``RowReader`` decodes records through it.
package protocol ColumnSource {
    var columnCount: Int32 { get }
    var columnNames: [String] { get }
    func columnName(at index: Int32) -> String
    func columnIndex(named name: String) -> Int32?
    func storageClass(at index: Int32) -> StorageClass
    func isNull(at index: Int32) -> Bool
    func text(at index: Int32) -> String
    func blob(at index: Int32) -> Data
    func value(at index: Int32) -> DatabaseValue
    /// The column when it holds a number (INTEGER or REAL), as a `Double`; else nil.
    func numberValue(at index: Int32) -> Double?
    /// The column when it holds an INTEGER, or a REAL with an exact `Int64` value; else nil.
    func integerValue(at index: Int32) -> Int64?
    /// The column when it holds TEXT; else nil.
    func textValue(at index: Int32) -> String?
    /// The column read as a date (RFC 3339 / SQLite text, or seconds since 1970), or nil.
    func date(at index: Int32) -> Date?
}
