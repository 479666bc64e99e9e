import Foundation
internal import ObservableStoreCSQLite
import ObservableStoreCore

/// What the schema declares about one column of a table.
package struct ColumnMetadata: Sendable, Equatable {
    /// The declared type, e.g. `TEXT` or `REAL` ("" when none was declared).
    package var declaredType: String
    /// The name of the column's collating sequence, e.g. `BINARY` or `NOCASE`.
    package var collation: String
    /// Whether the column is part of the primary key.
    package var isPrimaryKey: Bool
}

extension Connection {
    /// The declared type and collation of `column` of `table` in the main database, or nil when the
    /// table or column does not exist. The rowid (`rowid`, `oid`, `_rowid_`) of a rowid table is reported
    /// as an INTEGER primary key.
    ///
    /// The corresponding C function is `sqlite3_table_column_metadata` (the system library is built with
    /// `SQLITE_ENABLE_COLUMN_METADATA`).
    package func columnMetadata(table: String, column: String) -> ColumnMetadata? {
        var declaredType: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0
        var primaryKey: Int32 = 0
        var autoIncrement: Int32 = 0
        let code = sqlite3_table_column_metadata(
            handle, "main", table, column, &declaredType, &collation, &notNull, &primaryKey, &autoIncrement)
        guard code == SQLITE_OK else { return nil }
        return ColumnMetadata(
            declaredType: declaredType.map { String(cString: $0) } ?? "",
            collation: collation.map { String(cString: $0) } ?? "BINARY",
            isPrimaryKey: primaryKey != 0)
    }
}
