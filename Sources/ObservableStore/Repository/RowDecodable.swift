import Foundation
import StoreSQLite

/// A record that reads itself from a fetched row column by column, without `Decodable`'s containers: fetches
/// run several times faster. ``NodeVO`` and ``UserInfo`` conform; types that do not are decoded with
/// `Decodable`. Values are checked as `Decodable` checks them (an `Int64` does not read TEXT).
///
/// For example:
///
/// ```swift
/// extension Note: RowDecodable {
///     init(row: RowReader) throws {
///         id = try row.decodeIfPresent(Int64.self, "id")
///         title = try row.decode(String.self, "title")
///     }
/// }
/// ```
public protocol RowDecodable {
    /// Reads the record from the current row.
    init(row: RowReader) throws
}

/// The current row of a fetch, for ``RowDecodable``. Columns are found by name, fastest when read in the
/// order they were selected; a missing column or a value of the wrong storage class throws.
public struct RowReader {
    let statement: Statement

    // Int64, Double, String and Date are read straight from the statement (one column lookup each), not
    // through a `ColumnDecoder`: a record reads every column of every row it fetches.

    /// The integer in `column`.
    public func decode(_ type: Int64.Type, _ column: String) throws -> Int64 {
        try read(type, column, "INTEGER", statement.integerValue)
    }
    /// The number in `column`.
    public func decode(_ type: Double.Type, _ column: String) throws -> Double {
        try read(type, column, "REAL", statement.numberValue)
    }
    /// The text in `column`.
    public func decode(_ type: String.Type, _ column: String) throws -> String {
        try read(type, column, "TEXT", statement.textValue)
    }
    /// The date in `column` (RFC 3339 text, or seconds since 1970).
    public func decode(_ type: Date.Type, _ column: String) throws -> Date {
        try read(type, column, "a date", statement.date)
    }
    /// The value in `column`, of any `Decodable` type a record property may have.
    public func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T { try decoder(column).decode(type) }

    /// The integer in `column`, nil for NULL or no such column.
    public func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? {
        try readIfPresent(type, column, "INTEGER", statement.integerValue)
    }
    /// The text in `column`, nil for NULL or no such column.
    public func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? {
        try readIfPresent(type, column, "TEXT", statement.textValue)
    }
    /// The value in `column`, nil for NULL or no such column.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try present(column).map { try $0.decode(type) }
    }

    private func decoder(_ column: String) throws -> ColumnDecoder<Statement> {
        ColumnDecoder(statement: statement, index: try index(of: column), column: column)
    }

    /// `column`'s value as `value` reads it, or the error `ColumnDecoder` throws when it reads nil (a value
    /// that is not the `expected` kind, NULL included).
    private func read<T>(_ type: T.Type, _ column: String, _ expected: String, _ value: (Int32) -> T?) throws -> T {
        let index = try index(of: column)
        guard let result = value(index) else { throw mismatch(type, expected, index, column) }
        return result
    }

    /// Like ``read(_:_:_:_:)``, nil for NULL or no such column.
    private func readIfPresent<T>(_ type: T.Type, _ column: String, _ expected: String, _ value: (Int32) -> T?) throws -> T? {
        guard let index = statement.columnIndex(named: column) else { return nil }
        if let result = value(index) { return result }
        guard statement.isNull(at: index) else { throw mismatch(type, expected, index, column) }
        return nil
    }

    private func index(of column: String) throws -> Int32 {
        guard let index = statement.columnIndex(named: column) else {
            throw DecodingError.keyNotFound(
                ColumnKey(stringValue: column), .init(codingPath: [], debugDescription: "no column \(column) in the row"))
        }
        return index
    }

    /// The error `ColumnDecoder` throws for the same mismatch.
    private func mismatch(_ type: Any.Type, _ expected: String, _ index: Int32, _ column: String) -> DecodingError {
        ColumnDecoder(statement: statement, index: index, column: column).mismatch(type, expected)
    }

    private func present(_ column: String) -> ColumnDecoder<Statement>? {
        guard let index = statement.columnIndex(named: column), !statement.isNull(at: index) else { return nil }
        return ColumnDecoder(statement: statement, index: index, column: column)
    }
}
