import ObservableStoreCore
import StoreSQLite

/// The handle a ``Store/write(origin:_:)-8xja0`` or ``Store/read(_:)-3slq4`` closure works with: raw SQL, records, savepoints.
///
/// Everything done through one `Transaction` commits or rolls back together. A transaction is
/// valid only inside its closure and only on the thread that runs the closure: do not keep it or
/// pass it to another task. Read transactions see one consistent snapshot and cannot write.
///
/// For example:
///
/// ```swift
/// try store.write { tx in
///     var node = try tx.insert(NodeVO(name: "A", x: 0, y: 0))
///     node.x = 10
///     try tx.update(node)
/// }
/// ```
public final class Transaction {
    /// Whether a transaction may write.
    public enum Kind: Sendable {
        /// A `BEGIN IMMEDIATE` transaction on the writer connection.
        case write
        /// A read-only snapshot on a reader connection.
        case read
    }

    /// Whether this transaction can write.
    public let kind: Kind
    let connection: Connection
    /// The row changes of a write transaction; nil for reads.
    let capture: ChangeCapture?
    /// The writer's recently formatted dates, for the records a write encodes; nil for reads, and once the
    /// transaction has ended (a transaction kept past its closure must not touch the writer's cache while
    /// another write uses it: its record methods encode before they check that it is still active).
    var timestamps: TimestampCache? { isActive ? writerTimestamps : nil }
    private let writerTimestamps: TimestampCache?
    /// The writer's recent insert and update statements; nil for reads and once the transaction has ended
    /// (as ``timestamps``).
    var recentStatements: RecentStatements? { isActive ? writerRecentStatements : nil }
    private let writerRecentStatements: RecentStatements?
    private(set) var isActive = true
    private var savepointDepth = 0
    /// Whether a write ran a statement that may change the schema: anything but INSERT, UPDATE, DELETE,
    /// REPLACE and queries. When none did, the schema version is not read again at commit.
    private(set) var mayHaveChangedSchema = false
    /// Set when a statement other than a row change ran that may write the file (`sqlite3_stmt_readonly`
    /// says no: a `PRAGMA user_version = …`, DDL): the file may change with no row changed.
    private(set) var mayHaveWrittenBesidesRows = false

    init(
        connection: Connection, kind: Kind, capture: ChangeCapture?, timestamps: TimestampCache? = nil,
        recentStatements: RecentStatements? = nil
    ) {
        self.connection = connection
        self.kind = kind
        self.capture = capture
        self.writerTimestamps = timestamps
        self.writerRecentStatements = recentStatements
    }

    func end() { isActive = false }

    func checkActive() throws {
        guard isActive else {
            throw StoreError(.transactionMisuse, "the transaction has ended: use it only inside its closure")
        }
        guard kind == .read || connection.isInTransaction else {
            throw StoreError(
                .transactionMisuse,
                "SQLite rolled the transaction back after an earlier error (e.g. a RAISE(ROLLBACK) trigger or a full disk); "
                    + "nothing more can be done in it")
        }
    }

    /// Refuses transaction control: the store owns BEGIN and COMMIT (use savepoints). Schema changes
    /// are found at commit, by `PRAGMA schema_version`, read then only if a statement may have made one
    /// (``mayHaveChangedSchema``).
    func inspect(_ statement: Statement) throws {
        guard capture != nil else { return }
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

    // MARK: - Raw SQL

    /// Runs one SQL statement with bound `arguments` and returns how many rows it changed.
    ///
    /// Without arguments, `sql` may hold several statements separated by `;`.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> Int {
        guard arguments.isEmpty else {
            return try withStatement(sql, arguments) { statement in
                while try statement.step() {}
                return connection.changes
            }
        }
        try checkActive()
        // Several statements: each one that fails takes back only its own captured changes, as SQLite
        // takes back only that statement's work.
        var marker = capture?.mark()
        do {
            try connection.executeScript(sql, inspect: inspect, completed: { marker = capture?.mark() })
        } catch let error as SQLiteError {
            if let marker { capture?.rollback(to: marker) }
            throw StoreError(error)
        }
        return connection.changes
    }

    /// Runs a query and returns every row.
    public func fetchRows(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> [Row] {
        try withStatement(sql, arguments) { try Transaction.rows(of: $0) }
    }

    /// Steps `statement` to its end and returns its rows. The column names are read after a step, not before:
    /// SQLite re-prepares a statement inside its first step when the schema changed since it was prepared (by
    /// this process or another), and `SELECT *` then has other columns.
    static func rows(of statement: Statement) throws(SQLiteError) -> [Row] {
        var columns: [String] = []
        var rows: [Row] = []
        while try statement.step() {
            let values = statement.row()
            if rows.isEmpty || values.count != columns.count { columns = statement.columnNames }
            rows.append(Row(columns: columns, values: values))
        }
        return rows
    }

    /// Runs a query and returns the first column of the first row, or nil when there is no row.
    public func fetchValue(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> DatabaseValue? {
        try withStatement(sql, arguments) { statement in
            try statement.step() ? statement.value(at: 0) : nil
        }
    }

    /// Runs a query and decodes each row as a `T` (columns by name, as for records).
    public func fetchAll<T: Decodable>(
        _ type: T.Type, sql: String, arguments: [any DatabaseValueConvertible] = []
    ) throws -> [T] {
        try withStatement(sql, arguments) { statement in
            try decodeAll(type, from: statement, table: nil)
        }
    }

    /// Prepares (cached), binds, runs `body`, and always resets the statement afterwards, so that no
    /// statement stays active between calls.
    func withStatement<T>(
        _ sql: String, _ arguments: [any DatabaseValueConvertible], _ body: (Statement) throws -> T
    ) throws -> T {
        try withStatement(sql, arguments.map(\.databaseValue), body)
    }

    func withStatement<T>(_ sql: String, _ arguments: [DatabaseValue], _ body: (Statement) throws -> T) throws -> T {
        try withStatement(sql, binding: { try $0.bind(arguments) }, body)
    }

    /// Like `withStatement(_:_:_:)` with arguments, the parameters bound by `bind` instead.
    func withStatement<T>(
        _ sql: String, binding bind: (Statement) throws -> Void, _ body: (Statement) throws -> T
    ) throws -> T {
        try checkActive()
        let statement = try StoreError.wrapping { try connection.cachedStatement(sql) }
        defer { Transaction.finish(statement) }
        try inspect(statement)
        let marker = capture?.mark()
        do {
            return try StoreError.wrapping {
                try bind(statement)
                return try body(statement)
            }
        } catch {
            // The failed statement's own changes were undone by SQLite: forget their capture too.
            if let marker { capture?.rollback(to: marker) }
            throw error
        }
    }

    /// Ends a use of a cached statement: reset (so that no statement stays active between calls), and its
    /// large bound values released.
    static func finish(_ statement: Statement) {
        statement.reset()
        statement.releaseLargeBindings()
    }

    func decodeAll<T: Decodable>(_ type: T.Type, from statement: Statement, table: String?) throws -> [T] {
        if let readable = T.self as? any RowDecodable.Type {
            return try decodeAllFast(type, as: readable, from: statement, table: table)
        }
        var results: [T] = []
        while try statement.step() {
            results.append(try Transaction.decode(type, from: statement, table: table))
        }
        return results
    }

    /// Decodes the current row: with ``/ObservableStoreCore/RowDecodable`` when `T` conforms, else with `Decodable`.
    static func decode<T: Decodable>(_ type: T.Type, from statement: Statement, table: String?) throws -> T {
        do {
            if let readable = T.self as? any RowDecodable.Type {
                return try Transaction.decodeFast(type, as: readable, from: statement)
            }
            return try RowDecoder.decode(type, from: statement)
        } catch let error as DecodingError {
            throw Transaction.decodingFailed(T.self, table: table, error)
        }
    }

    /// Every row through `Fast`'s ``/ObservableStoreCore/RowDecodable`` initializer; `Fast` is `T` (the caller's cast opened it).
    private func decodeAllFast<T, Fast: RowDecodable>(
        _ type: T.Type, as fast: Fast.Type, from statement: Statement, table: String?
    ) throws -> [T] {
        assert(Fast.self == T.self)
        var results: [Fast] = []
        do {
            while try statement.step() {
                results.append(try Fast(row: RowReader(columns: statement)))
            }
        } catch let error as DecodingError {
            throw Transaction.decodingFailed(T.self, table: table, error)
        }
        // Same type: hand the array over without copying each element through an existential box.
        return unsafeBitCast(results, to: [T].self)
    }

    /// One row through `Fast`'s ``/ObservableStoreCore/RowDecodable`` initializer; `Fast` is `T`.
    private static func decodeFast<T, Fast: RowDecodable>(_ type: T.Type, as fast: Fast.Type, from statement: Statement) throws -> T {
        let value = try Fast(row: RowReader(columns: statement))
        return withUnsafePointer(to: value) { $0.withMemoryRebound(to: T.self, capacity: 1) { $0.pointee } }
    }

    private static func decodingFailed(_ type: Any.Type, table: String?, _ error: DecodingError) -> StoreError {
        StoreError(.invalidInput, "cannot decode \(type)\(table.map { " from \($0)" } ?? ""): \(error.summary)")
    }

    // MARK: - Savepoints

    /// Runs `body` inside a savepoint: if it throws, only its work is rolled back, then the error is rethrown.
    ///
    /// Savepoints nest. Related SQLite documentation: <https://www.sqlite.org/lang_savepoint.html>
    @discardableResult
    public func savepoint<T>(_ body: (Transaction) throws -> T) throws -> T {
        try checkActive()
        savepointDepth += 1
        let name = "store_savepoint_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try StoreError.wrapping { try connection.execute("SAVEPOINT \(name)") }
        capture?.pushSavepoint()
        do {
            let result = try body(self)
            try StoreError.wrapping { try connection.execute("RELEASE \(name)") }
            capture?.releaseSavepoint()
            return result
        } catch {
            if connection.isInTransaction {
                try? connection.execute("ROLLBACK TO \(name)")
                try? connection.execute("RELEASE \(name)")
            }
            capture?.rollbackSavepoint()
            throw error
        }
    }
}
