import ObservableStoreCore
import StoreSQLite

/// What a write transaction allows its statements, and what it learns from them: transaction control is
/// refused (the store owns BEGIN and COMMIT), and a statement other than a row change or a query marks the
/// write as one that may have changed the schema or written the file besides rows.
struct StatementPolicy {
    /// Whether a write ran a statement that may change the schema: anything but INSERT, UPDATE, DELETE,
    /// REPLACE and queries. When none did, the schema version is not read again at commit.
    private(set) var mayHaveChangedSchema = false
    /// Set when a statement other than a row change ran that may write the file (`sqlite3_stmt_readonly`
    /// says no: a `PRAGMA user_version = …`, DDL): the file may change with no row changed.
    private(set) var mayHaveWrittenBesidesRows = false

    /// Refuses transaction control: the store owns BEGIN and COMMIT (use savepoints). Schema changes
    /// are found at commit, by `PRAGMA schema_version`, read then only if a statement may have made one
    /// (``mayHaveChangedSchema``).
    mutating func inspect(_ statement: Statement) throws {
        // Row changes first: every record write and query runs through here, and each case is a string compare.
        switch statement.leadingKeyword {
        case "INSERT", "UPDATE", "DELETE", "SELECT", "REPLACE", "WITH", "VALUES":
            break  // row changes at most: triggers cannot change the schema
        case "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE":
            throw StoreError(
                .invalidInput,
                "`\(statement.leadingKeyword)` is not allowed inside write: the store commits when the closure returns "
                    + "and rolls back when it throws; use tx.savepoint { } for nested work")
        default:
            mayHaveChangedSchema = true  // CREATE, ALTER, DROP, ANALYZE, PRAGMA, …
            if !statement.isReadOnly { mayHaveWrittenBesidesRows = true }
        }
    }
}
