internal import ObservableStoreCSQLite

/// One column (or whole table) a statement reads, as SQLite's authorizer reports it (`SQLITE_READ`) while
/// the statement is prepared.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/set_authorizer.html>
package struct ReadAccess: Hashable, Sendable {
    /// The database the table is in: "main", "temp" or an attached database's name; nil when SQLite does not
    /// say (it does not for a whole-table read).
    package let database: String?
    /// The table (or view, or virtual table) as the schema spells it.
    package let table: String
    /// The column as the schema spells it (an `INTEGER PRIMARY KEY` read as `rowid` is reported by its own
    /// name); "ROWID" for the rowid of a table that has no such column; "" when the statement uses the table
    /// without reading a column (`count(*)`, `EXISTS`).
    package let column: String

    /// A read of `column` of `table` in `database`.
    package init(database: String?, table: String, column: String) {
        self.database = database
        self.table = table
        self.column = column
    }
}

/// The authorizer's state: the reads recorded so far, nil while nothing records.
final class AuthorizerBox {
    var reads: Set<ReadAccess>?
}

extension Connection {
    /// Runs `body` and returns what the statements it prepared read: every table and column SQLite's
    /// authorizer reported. Meanwhile ``cachedStatement(_:)`` prepares each statement again instead of
    /// reusing the cached one (the authorizer is called only while a statement is prepared), so a
    /// statement used before still reports its reads. Calls nest: an outer call also gets the inner reads.
    ///
    /// The authorizer is installed at the first call and stays (it records nothing outside these calls);
    /// installing it makes SQLite prepare this connection's statements again at their next use, once.
    /// It allows everything. Related SQLite documentation: <https://www.sqlite.org/c3ref/set_authorizer.html>
    package func recordingReads<T>(_ body: () throws -> T) throws -> (value: T, reads: Set<ReadAccess>) {
        let box = try installedAuthorizer()
        let outer = box.reads
        box.reads = []
        defer { box.reads = outer.map { $0.union(box.reads ?? []) } }
        let value = try body()
        return (value, box.reads ?? [])
    }

    /// Whether ``recordingReads(_:)`` is running.
    var isRecordingReads: Bool { authorizer?.reads != nil }

    private func installedAuthorizer() throws(SQLiteError) -> AuthorizerBox {
        if let authorizer { return authorizer }
        let box = AuthorizerBox()
        let code = sqlite3_set_authorizer(
            handle,
            { context, action, table, column, database, _ in
                guard action == SQLITE_READ, let context, let table else { return SQLITE_OK }
                let box = Unmanaged<AuthorizerBox>.fromOpaque(context).takeUnretainedValue()
                guard box.reads != nil else { return SQLITE_OK }
                box.reads?.insert(
                    ReadAccess(
                        database: database.map { String(cString: $0) }, table: String(cString: table),
                        column: column.map { String(cString: $0) } ?? ""))
                return SQLITE_OK
            }, Unmanaged.passUnretained(box).toOpaque())
        guard code == SQLITE_OK else { throw lastError(code, sql: nil) }
        authorizer = box
        return box
    }
}
