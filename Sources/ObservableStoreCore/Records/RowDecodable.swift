import Foundation

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

/// The current row of a fetch, or a row of an event, for ``RowDecodable``. Columns are found by name,
/// fastest when read in the order they were selected; a missing column or a value of the wrong storage class throws.
public struct RowReader {
    /// The row's columns: an engine's statement on its current row (a fetch), or a ``Row`` (an event's old or
    /// new row). One stored existential, called in place: a fetch reads every column of every row through it.
    /// Usable from inline code, and the accessors inlinable, so that a record's `init(row:)` in another module
    /// (every service's record, every `@Record`) calls the existential directly as NodeVO's does: without,
    /// `macro_record_fetch` ran 1.15× NodeVO's `fetch_all` with the same generated calls.
    @usableFromInline let source: any ColumnReading

    /// Reads a row through `reader` (an engine's statement on its current row: the SQLite engine's
    /// `StatementRowReader`).
    package init(reader: any ColumnReading) { source = reader }
    /// Reads `row`.
    package init(row: Row) { source = RowColumnReader(row: row) }

    /// The integer in `column`.
    @inlinable public func decode(_ type: Int64.Type, _ column: String) throws -> Int64 {
        try source.decode(type, column)
    }

    /// The number in `column`.
    @inlinable public func decode(_ type: Double.Type, _ column: String) throws -> Double {
        try source.decode(type, column)
    }

    /// The text in `column`.
    @inlinable public func decode(_ type: String.Type, _ column: String) throws -> String {
        try source.decode(type, column)
    }

    /// The date in `column` (RFC 3339 text, or seconds since 1970).
    @inlinable public func decode(_ type: Date.Type, _ column: String) throws -> Date {
        try source.decode(type, column)
    }

    /// The value in `column`, of any `Decodable` type a record property may have.
    @inlinable public func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T {
        try source.decode(type, column)
    }

    /// The integer in `column`, nil for NULL or no such column.
    @inlinable public func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? {
        try source.decodeIfPresent(type, column)
    }

    /// The text in `column`, nil for NULL or no such column.
    @inlinable public func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? {
        try source.decodeIfPresent(type, column)
    }

    /// The value in `column`, nil for NULL or no such column.
    @inlinable public func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try source.decodeIfPresent(type, column)
    }
}

/// ``RowDecodable`` decoding of a ``Row``, and of a record type that may or may not conform.
extension RowReader {
    /// `type` read from `row`: through ``RowDecodable`` when it conforms (as fetches do), else through
    /// `Decodable`. Throws `DecodingError`.
    package static func decode<T: Decodable>(_ type: T.Type, from row: Row) throws -> T {
        if let readable = T.self as? any RowDecodable.Type {
            return try decode(as: readable, from: row) as T
        }
        return try RowDecoder.decode(type, from: row)
    }

    /// One row through `Fast`'s ``RowDecodable`` initializer; `Fast` is `T` (the caller's cast opened it).
    private static func decode<T, Fast: RowDecodable>(as fast: Fast.Type, from row: Row) throws -> T {
        let value = try Fast(row: RowReader(row: row))
        guard let typed = value as? T else { preconditionFailure("\(Fast.self) is not \(T.self)") }
        return typed
    }
}
