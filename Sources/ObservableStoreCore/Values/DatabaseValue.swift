import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Related SQLite documentation: <https://www.sqlite.org/datatype3.html>
///
/// For example:
///
/// ```swift
/// let values: [DatabaseValue] = [.integer(1), .text("Ada"), .null]
/// ```
public enum DatabaseValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A signed 64-bit integer (`SQLITE_INTEGER`).
    case integer(Int64)
    /// An IEEE 754 double (`SQLITE_FLOAT`).
    case real(Double)
    /// UTF-8 text (`SQLITE_TEXT`).
    case text(String)
    /// Bytes (`SQLITE_BLOB`).
    case blob(Data)

    /// Whether this is SQL `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// A short, SQL-literal-like rendering, for logs and test failures.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
