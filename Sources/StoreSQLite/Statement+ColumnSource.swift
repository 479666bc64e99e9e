import Foundation
import ObservableStoreCore

// The core's row decoders read a fetched row straight from the statement, and its row encoder binds a
// record's values straight into the statement's parameters.
extension Statement: ColumnSource, ParameterSink {
    package func date(at index: Int32) -> Date? {
        // Parsed from SQLite's bytes directly: no String is made for the hundreds of thousands of dates a fetch reads.
        if let text = withTextValue(at: index, { Timestamp.parse(bytes: $0) }) { return text }
        return Date.fromDatabaseValue(value(at: index))
    }
}

/// ``ColumnReading`` over a statement's current row, behind the one protocol call ``RowReader`` makes per
/// column: the common types straight from the statement, the rest (and every error) through the core's
/// `ColumnReader`, specialized for `Statement` here (its code is inlinable). Reading through the generic
/// `ColumnReader` alone made fetches twice as slow (`fetch_all`, measured when the core module was split off).
package struct StatementRowReader: ColumnReading {
    private let statement: Statement

    /// A reader of `statement`'s current row.
    package init(_ statement: Statement) { self.statement = statement }

    private var reader: ColumnReader<Statement> { ColumnReader(source: statement) }

    /// What `read` finds in `column`, nil when there is no such column or `read` finds nothing there.
    private func value<T>(of column: String, _ read: (Int32) -> T?) -> T? {
        statement.columnIndex(named: column).flatMap(read)
    }

    // The four types records use most: read here, with direct calls to the statement; a missing column or a
    // value of another kind goes to the shared reader, which throws the error it describes.

    package func decode(_ type: Int64.Type, _ column: String) throws -> Int64 {
        try value(of: column, statement.integerValue) ?? reader.decode(type, column)
    }
    package func decode(_ type: Double.Type, _ column: String) throws -> Double {
        try value(of: column, statement.numberValue) ?? reader.decode(type, column)
    }
    package func decode(_ type: String.Type, _ column: String) throws -> String {
        try value(of: column, statement.textValue) ?? reader.decode(type, column)
    }
    package func decode(_ type: Date.Type, _ column: String) throws -> Date {
        try value(of: column, statement.date) ?? reader.decode(type, column)
    }
    package func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T { try reader.decode(type, column) }
    package func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? {
        try value(of: column, statement.integerValue) ?? reader.decodeIfPresent(type, column)
    }
    package func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? {
        try value(of: column, statement.textValue) ?? reader.decodeIfPresent(type, column)
    }
    package func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try reader.decodeIfPresent(type, column)
    }
}
