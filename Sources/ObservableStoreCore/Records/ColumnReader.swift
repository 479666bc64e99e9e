import Foundation

/// ``RowReader``'s accessors for one kind of source (a statement's current row, or a ``Row``), specialized
/// for it: Int64, Double, String and Date are read straight from the source (one column lookup each), not
/// through a `ColumnDecoder`.
///
/// Across the module boundary an engine's statement reaches it unspecialized (generic code, protocol witnesses
/// for every column: a fetch through it alone was twice as slow, `fetch_all`). So the SQLite engine's
/// `StatementRowReader` reads the common types itself and comes here only for the others and for errors.
package struct ColumnReader<Source: ColumnSource> {
    package let source: Source

    /// A reader of `source`'s current row.
    package init(source: Source) { self.source = source }

    package func decode(_ type: Int64.Type, _ column: String) throws -> Int64 {
        try read(type, column, "INTEGER", source.integerValue)
    }
    package func decode(_ type: Double.Type, _ column: String) throws -> Double {
        try read(type, column, "REAL", source.numberValue)
    }
    package func decode(_ type: String.Type, _ column: String) throws -> String {
        try read(type, column, "TEXT", source.textValue)
    }
    package func decode(_ type: Date.Type, _ column: String) throws -> Date {
        try read(type, column, "a date", source.date)
    }
    package func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T { try decoder(column).decode(type) }

    package func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? {
        try readIfPresent(type, column, "INTEGER", source.integerValue)
    }
    package func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? {
        try readIfPresent(type, column, "TEXT", source.textValue)
    }
    package func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try present(column).map { try $0.decode(type) }
    }

    private func decoder(_ column: String) throws -> ColumnDecoder<Source> {
        ColumnDecoder(statement: source, index: try index(of: column), column: column)
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
        guard let index = source.columnIndex(named: column) else { return nil }
        if let result = value(index) { return result }
        guard source.isNull(at: index) else { throw mismatch(type, expected, index, column) }
        return nil
    }

    private func index(of column: String) throws -> Int32 {
        guard let index = source.columnIndex(named: column) else {
            throw DecodingError.keyNotFound(
                ColumnKey(stringValue: column), .init(codingPath: [], debugDescription: "no column \(column) in the row"))
        }
        return index
    }

    /// The error `ColumnDecoder` throws for the same mismatch.
    private func mismatch(_ type: Any.Type, _ expected: String, _ index: Int32, _ column: String) -> DecodingError {
        ColumnDecoder(statement: source, index: index, column: column).mismatch(type, expected)
    }

    private func present(_ column: String) -> ColumnDecoder<Source>? {
        guard let index = source.columnIndex(named: column), !source.isNull(at: index) else { return nil }
        return ColumnDecoder(statement: source, index: index, column: column)
    }
}

/// ``ColumnReader``'s accessors, whatever its source: what ``RowReader`` holds for an engine's statement,
/// whose type the core does not know.
@usableFromInline package protocol ColumnReading {
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
