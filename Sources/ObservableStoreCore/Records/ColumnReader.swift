import Foundation

/// ``RowReader``'s accessors for one kind of source (a statement's current row, or a ``Row``), specialized
/// for it: Int64, Double, String and Date are read straight from the source (one column lookup each), not
/// through a `ColumnDecoder`.
///
/// Inlinable: an engine specializes it for its statement type (``ColumnReading`` over the SQLite engine's
/// `Statement` is `StatementRowReader`), so that a fetch reads each column through direct calls, not through
/// the generic code and the statement's protocol witnesses (which made a fetch twice as slow).
package struct ColumnReader<Source: ColumnSource> {
    package let source: Source

    /// A reader of `source`'s current row.
    @inlinable package init(source: Source) { self.source = source }

    @inlinable package func decode(_ type: Int64.Type, _ column: String) throws -> Int64 {
        try read(type, column, "INTEGER", source.integerValue)
    }
    @inlinable package func decode(_ type: Double.Type, _ column: String) throws -> Double {
        try read(type, column, "REAL", source.numberValue)
    }
    @inlinable package func decode(_ type: String.Type, _ column: String) throws -> String {
        try read(type, column, "TEXT", source.textValue)
    }
    @inlinable package func decode(_ type: Date.Type, _ column: String) throws -> Date {
        try read(type, column, "a date", source.date)
    }
    @inlinable package func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T { try decoder(column).decode(type) }

    @inlinable package func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? {
        try readIfPresent(type, column, "INTEGER", source.integerValue)
    }
    @inlinable package func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? {
        try readIfPresent(type, column, "TEXT", source.textValue)
    }
    @inlinable package func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try present(column).map { try $0.decode(type) }
    }

    @usableFromInline package func decoder(_ column: String) throws -> ColumnDecoder<Source> {
        ColumnDecoder(statement: source, index: try index(of: column), column: column)
    }

    /// `column`'s value as `value` reads it, or the error `ColumnDecoder` throws when it reads nil (a value
    /// that is not the `expected` kind, NULL included).
    @inlinable package func read<T>(_ type: T.Type, _ column: String, _ expected: String, _ value: (Int32) -> T?) throws -> T {
        let index = try index(of: column)
        guard let result = value(index) else { throw mismatch(type, expected, index, column) }
        return result
    }

    /// Like ``read(_:_:_:_:)``, nil for NULL or no such column.
    @inlinable package func readIfPresent<T>(_ type: T.Type, _ column: String, _ expected: String, _ value: (Int32) -> T?) throws -> T? {
        guard let index = source.columnIndex(named: column) else { return nil }
        if let result = value(index) { return result }
        guard source.isNull(at: index) else { throw mismatch(type, expected, index, column) }
        return nil
    }

    @inlinable package func index(of column: String) throws -> Int32 {
        guard let index = source.columnIndex(named: column) else {
            throw DecodingError.keyNotFound(
                ColumnKey(stringValue: column), .init(codingPath: [], debugDescription: "no column \(column) in the row"))
        }
        return index
    }

    /// The error `ColumnDecoder` throws for the same mismatch.
    @inlinable package func mismatch(_ type: Any.Type, _ expected: String, _ index: Int32, _ column: String) -> DecodingError {
        ColumnDecoder(statement: source, index: index, column: column).mismatch(type, expected)
    }

    @usableFromInline package func present(_ column: String) -> ColumnDecoder<Source>? {
        guard let index = source.columnIndex(named: column), !source.isNull(at: index) else { return nil }
        return ColumnDecoder(statement: source, index: index, column: column)
    }
}

/// ``ColumnReader``'s accessors, whatever its source: what ``RowReader`` holds for an engine's statement,
/// whose type the core does not know.
package protocol ColumnReading {
    func decode(_ type: Int64.Type, _ column: String) throws -> Int64
    func decode(_ type: Double.Type, _ column: String) throws -> Double
    func decode(_ type: String.Type, _ column: String) throws -> String
    func decode(_ type: Date.Type, _ column: String) throws -> Date
    func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T
    func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64?
    func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String?
    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T?
}

/// ``ColumnReading`` over a ``Row``: ``ColumnReader`` specialized for it.
struct RowColumnReader: ColumnReading {
    private let reader: ColumnReader<Row>

    init(row: Row) { reader = ColumnReader(source: row) }

    func decode(_ type: Int64.Type, _ column: String) throws -> Int64 { try reader.decode(type, column) }
    func decode(_ type: Double.Type, _ column: String) throws -> Double { try reader.decode(type, column) }
    func decode(_ type: String.Type, _ column: String) throws -> String { try reader.decode(type, column) }
    func decode(_ type: Date.Type, _ column: String) throws -> Date { try reader.decode(type, column) }
    func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T { try reader.decode(type, column) }
    func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? { try reader.decodeIfPresent(type, column) }
    func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? { try reader.decodeIfPresent(type, column) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try reader.decodeIfPresent(type, column)
    }
}
