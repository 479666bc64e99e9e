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

    /// The integer in `column`.
    public func decode(_ type: Int64.Type, _ column: String) throws -> Int64 { try decoder(column).decode(type) }
    /// The number in `column`.
    public func decode(_ type: Double.Type, _ column: String) throws -> Double { try decoder(column).decode(type) }
    /// The text in `column`.
    public func decode(_ type: String.Type, _ column: String) throws -> String { try decoder(column).decode(type) }
    /// The date in `column` (RFC 3339 text, or seconds since 1970).
    public func decode(_ type: Date.Type, _ column: String) throws -> Date { try decoder(column).decode(type) }
    /// The value in `column`, of any `Decodable` type a record property may have.
    public func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T { try decoder(column).decode(type) }

    /// The integer in `column`, nil for NULL or no such column.
    public func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? {
        try present(column).map { try $0.decode(type) }
    }
    /// The text in `column`, nil for NULL or no such column.
    public func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? {
        try present(column).map { try $0.decode(type) }
    }
    /// The value in `column`, nil for NULL or no such column.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try present(column).map { try $0.decode(type) }
    }

    private func decoder(_ column: String) throws -> ColumnDecoder<Statement> {
        guard let index = statement.columnIndex(named: column) else {
            throw DecodingError.keyNotFound(
                ColumnKey(stringValue: column), .init(codingPath: [], debugDescription: "no column \(column) in the row"))
        }
        return ColumnDecoder(statement: statement, index: index, column: column)
    }

    private func present(_ column: String) -> ColumnDecoder<Statement>? {
        guard let index = statement.columnIndex(named: column), !statement.isNull(at: index) else { return nil }
        return ColumnDecoder(statement: statement, index: index, column: column)
    }
}
