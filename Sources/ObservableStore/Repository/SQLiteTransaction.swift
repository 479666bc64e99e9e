import ObservableStoreCore
import StoreSQLite

/// The handle a ``SQLiteStore/write(origin:_:)-662mu`` or ``SQLiteStore/read(_:)-2havo`` closure works with: raw SQL, records, savepoints.
///
/// Everything done through one `SQLiteTransaction` commits or rolls back together. A transaction is
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
public final class SQLiteTransaction {
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
    var recordStatements: RecordStatements? { isActive ? writerRecordStatements : nil }
    private let writerRecordStatements: RecordStatements?
    private(set) var isActive = true
    private var savepointDepth = 0
    /// What the write's statements may have done besides changing rows.
    private var policy = StatementPolicy()
    /// Whether a write ran a statement that may change the schema (``StatementPolicy/mayHaveChangedSchema``).
    var mayHaveChangedSchema: Bool { policy.mayHaveChangedSchema }
    /// Whether a write ran a statement that may write the file besides rows (``StatementPolicy/mayHaveWrittenBesidesRows``).
    var mayHaveWrittenBesidesRows: Bool { policy.mayHaveWrittenBesidesRows }

    init(
        connection: Connection, kind: Kind, capture: ChangeCapture?, timestamps: TimestampCache? = nil,
        recordStatements: RecordStatements? = nil
    ) {
        self.connection = connection
        self.kind = kind
        self.capture = capture
        self.writerTimestamps = timestamps
        self.writerRecordStatements = recordStatements
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

    /// Checks `statement` before a write runs it (``StatementPolicy/inspect(_:)``); reads are not checked.
    func inspect(_ statement: Statement) throws {
        guard capture != nil else { return }
        try policy.inspect(statement)
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
        try withStatement(sql, arguments) { try RowFetcher.rows(of: $0) }
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
            try RowFetcher.decodeAll(type, from: statement, table: nil)
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
        defer { SQLiteTransaction.finish(statement) }
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

    // MARK: - Savepoints

    /// Runs `body` inside a savepoint: if it throws, only its work is rolled back, then the error is rethrown.
    ///
    /// Savepoints nest. Related SQLite documentation: <https://www.sqlite.org/lang_savepoint.html>
    @discardableResult
    public func savepoint<T>(_ body: (SQLiteTransaction) throws -> T) throws -> T {
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
