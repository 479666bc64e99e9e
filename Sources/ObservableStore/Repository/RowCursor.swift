import ObservableStoreCore
import StoreSQLite

/// The current row of a statement being stepped, read in place: what ``SQLiteTransaction/forEachRow(_:named:_:)`` hands
/// its body for each row, for callers that copy values straight out (storectl's output) instead of building a
/// ``/ObservableStoreCore/Row`` per row.
///
/// Valid only during the call it is passed to; the bytes of a TEXT or BLOB value only during ``withBytes(at:_:)``.
package struct RowCursor {
    private let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// The number of result columns.
    package var columnCount: Int { Int(statement.columnCount) }

    /// The result column names, in order.
    package var columnNames: [String] { statement.columnNames }

    /// The storage class of column `index` (0-based) in this row.
    package func storageClass(at index: Int) -> StorageClass { statement.storageClass(at: Int32(index)) }

    /// Column `index` as an integer (SQLite converts other storage classes).
    package func int64(at index: Int) -> Int64 { statement.int64(at: Int32(index)) }

    /// Column `index` as a double (SQLite converts other storage classes).
    package func double(at index: Int) -> Double { statement.double(at: Int32(index)) }

    /// Calls `body` with column `index`'s bytes: TEXT as SQLite stores it (UTF-8, not checked), a BLOB's bytes,
    /// empty for other storage classes. The bytes are valid only during the call.
    package func withBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try statement.withBytes(at: Int32(index), body)
    }

    /// Column `index` as a value of its own storage class (invalid UTF-8 in TEXT repaired with U+FFFD).
    package func value(at index: Int) -> DatabaseValue { statement.value(at: Int32(index)) }
}
