import Foundation
import ObservableStoreCore
import StoreSQLite

/// `ColumnReading` over a statement's current row, behind the one protocol call `RowReader` makes per
/// column: the common types straight from the statement, the rest (and every error) through the core's
/// `ColumnReader`, which reaches `Statement` unspecialized across the module boundary: reading every column
/// through it made fetches twice as slow (`fetch_all`, measured when the core module was split off).
struct StatementRowReader: ColumnReading {
    private let statement: Statement

    /// A reader of `statement`'s current row.
    init(_ statement: Statement) { self.statement = statement }

    private var reader: ColumnReader<Statement> { ColumnReader(source: statement) }

    /// What `read` finds in `column`, nil when there is no such column or `read` finds nothing there.
    private func value<T>(of column: String, _ read: (Int32) -> T?) -> T? {
        statement.columnIndex(named: column).flatMap(read)
    }

    /// For `decodeIfPresent`: `.some(nil)` when there is no such column or it is NULL, `.some(value)` when
    /// `read` finds one, nil otherwise (a value of another kind: the shared reader throws its error). One
    /// column lookup, as ``ColumnReader`` makes.
    private func valueIfPresent<T>(of column: String, _ read: (Int32) -> T?) -> T?? {
        guard let index = statement.columnIndex(named: column) else { return .some(nil) }
        if let value = read(index) { return .some(value) }
        return statement.isNull(at: index) ? .some(nil) : nil
    }

    // The four types records use most: read here, with direct calls to the statement; a missing column or a
    // value of another kind goes to the shared reader, which throws the error it describes.

    func decode(_ type: Int64.Type, _ column: String) throws -> Int64 {
        try value(of: column, statement.integerValue) ?? reader.decode(type, column)
    }
    func decode(_ type: Double.Type, _ column: String) throws -> Double {
        try value(of: column, statement.numberValue) ?? reader.decode(type, column)
    }
    func decode(_ type: String.Type, _ column: String) throws -> String {
        try value(of: column, statement.textValue) ?? reader.decode(type, column)
    }
    func decode(_ type: Date.Type, _ column: String) throws -> Date {
        try value(of: column, statement.date) ?? reader.decode(type, column)
    }
    func decode<T: Decodable>(_ type: T.Type, _ column: String) throws -> T { try reader.decode(type, column) }
    func decodeIfPresent(_ type: Int64.Type, _ column: String) throws -> Int64? {
        try valueIfPresent(of: column, statement.integerValue) ?? reader.decodeIfPresent(type, column)
    }
    func decodeIfPresent(_ type: String.Type, _ column: String) throws -> String? {
        try valueIfPresent(of: column, statement.textValue) ?? reader.decodeIfPresent(type, column)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ column: String) throws -> T? {
        try reader.decodeIfPresent(type, column)
    }
}
