#if PostgreSQL
import ObservableStoreCore
import StorePostgres

/// The handle a ``PostgresStore/write(origin:_:)`` or ``PostgresStore/read(_:)`` closure works with: raw SQL, records,
/// savepoints. The PostgreSQL counterpart of the SQLite engine's `SQLiteTransaction`, with the same methods.
///
/// Every method has two forms: the blocking one (in a synchronous closure) and the `async` one (in an `async` closure:
/// `try await tx.insert(node)`), which waits for the server with no thread blocked.
///
/// Everything done through one transaction commits or rolls back together. A transaction is valid only inside its
/// closure. Writes run in READ COMMITTED; a read sees one snapshot
/// (REPEATABLE READ, READ ONLY) and cannot write.
///
/// Unlike SQLite, PostgreSQL aborts the whole transaction when one of its statements fails: catching the error and
/// going on fails with ``/ObservableStoreCore/StoreError/Code/transactionMisuse``. Run a statement that may fail inside
/// ``savepoint(_:)`` to keep the rest.
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
public final class PostgresTransaction {
    /// Whether a transaction may write.
    public enum Kind: Sendable {
        /// A READ COMMITTED transaction that may write.
        case write
        /// A read-only snapshot.
        case read
    }

    /// Whether this transaction can write.
    public let kind: Kind
    let connection: ServerConnection
    /// The store's column types, for binding records.
    let tableColumns: TableColumnsCache
    private(set) var isActive = true
    private var savepointDepth = 0

    init(connection: ServerConnection, kind: Kind, tableColumns: TableColumnsCache) {
        self.connection = connection
        self.kind = kind
        self.tableColumns = tableColumns
    }

    func end() { isActive = false }

    func checkActive() throws {
        guard isActive else {
            throw StoreError(.transactionMisuse, "the transaction has ended: use it only inside its closure")
        }
    }

    /// Runs `statement`: reads the column types of its table first (unless cached), then runs its SQL.
    func perform<Output>(_ statement: TransactionStatement<Output>) throws -> Output {
        try checkActive()
        let columns = try statement.table.map { try tableColumns.columns(of: $0, on: connection) } ?? TableColumns.unknown
        let (sql, values) = try statement.make(columns)
        return try statement.finish(try connection.query(sql, values))
    }

    /// Runs `statement`, the caller suspended while the server works.
    nonisolated(nonsending) func perform<Output>(_ statement: TransactionStatement<Output>) async throws -> Output {
        try checkActive()
        var columns = TableColumns.unknown
        if let table = statement.table { columns = try await tableColumns.columns(of: table, on: connection) }
        let (sql, values) = try statement.make(columns)
        return try statement.finish(try await connection.query(sql, values))
    }

    /// Runs one statement the store built (`$n` placeholders) and returns its result.
    @discardableResult
    func run(_ sql: String, _ values: [DatabaseValue] = []) throws -> ServerResult {
        try perform(statement(sql, values))
    }

    /// One statement the store built (`$n` placeholders), returning its result.
    func statement(_ sql: String, _ values: [DatabaseValue] = []) -> TransactionStatement<ServerResult> {
        TransactionStatement(sql: sql, values: values)
    }

    /// Caller SQL: `?` placeholders numbered (``Placeholders``); the column cache forgotten after DDL. Without
    /// arguments, several statements separated by `;` run as one script.
    private func callerStatement(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws
        -> TransactionStatement<ServerResult>
    {
        let tableColumns = tableColumns
        let changesSchema = PostgresTransaction.mayChangeSchema(sql)
        let isScript = arguments.isEmpty && Placeholders.hasSeveralStatements(sql)
        let text = isScript ? try ServerConnection.scriptCommand(sql) : Placeholders.numbered(sql).sql
        return TransactionStatement(sql: text, values: isScript ? [] : arguments.map(\.databaseValue)) { result in
            if changesSchema || isScript { tableColumns.removeAll() }
            return result
        }
    }

    /// Whether `sql` may change the schema: its first statement is DDL (or a `DO` block), or it is a script with a
    /// `CREATE`, `ALTER` or `DROP` in it. A write that runs such SQL is logged as a schema change, as a migration is:
    /// observers read again, and the log's readers forget the tables' layouts.
    static func changesSchema(_ sql: String) -> Bool {
        if mayChangeSchema(sql) { return true }
        guard Placeholders.hasSeveralStatements(sql) else { return false }
        return Placeholders.keywords(sql).contains { $0 == "CREATE" || $0 == "ALTER" || $0 == "DROP" }
    }

    /// Opens this transaction's commit record and marks it a schema change.
    static let markingSchemaChange = [
        "SELECT _store_open_commit()", "UPDATE _store_commits SET schema_changed = true WHERE txid = pg_current_xact_id()",
    ]

    /// Whether `sql` starts with a statement that may change a table's columns.
    static func mayChangeSchema(_ sql: String) -> Bool {
        let keyword = sql.drop { $0.isWhitespace }.prefix { $0.isLetter }.uppercased()
        return ["CREATE", "ALTER", "DROP", "DO"].contains(keyword)
    }

    // MARK: - Raw SQL

    /// Runs SQL with bound `arguments` (`$1`, `$2`, … or `?` placeholders) and returns how many rows it changed.
    ///
    /// Without arguments, `sql` may hold several statements separated by `;` (run as one script; the count is then 0).
    /// A value compared with or written to a column of a type other than integer, floating point, text or `bytea`
    /// needs a cast in the SQL: `WHERE created_at > $1::timestamptz`.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> Int {
        let count = try perform(callerStatement(sql, arguments).map(\.affectedRows))
        if kind == .write && PostgresTransaction.changesSchema(sql) {
            for statement in PostgresTransaction.markingSchemaChange { try run(statement) }
        }
        return count
    }

    /// Runs SQL with bound `arguments` and returns how many rows it changed, as the blocking form does.
    @discardableResult
    nonisolated(nonsending) public func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) async throws -> Int {
        let count = try await perform(callerStatement(sql, arguments).map(\.affectedRows))
        if kind == .write && PostgresTransaction.changesSchema(sql) {
            for statement in PostgresTransaction.markingSchemaChange { _ = try await perform(self.statement(statement)) }
        }
        return count
    }

    /// Makes each later statement of this transaction wait at most `timeout` for a lock (a row another writer holds,
    /// a table an `ALTER` holds), then throw ``/ObservableStoreCore/StoreError/Code/busy`` (`SET LOCAL lock_timeout`;
    /// whole milliseconds). Without it a statement waits as long as the lock is held.
    public func limitLockWaits(to timeout: Duration) throws {
        let setting = ServerConnection.lockTimeoutSetting(timeout)
        _ = try perform(statement(setting.sql, setting.values))
    }

    /// Limits each later statement's lock waits to `timeout`, as the blocking form does.
    nonisolated(nonsending) public func limitLockWaits(to timeout: Duration) async throws {
        let setting = ServerConnection.lockTimeoutSetting(timeout)
        _ = try await perform(statement(setting.sql, setting.values))
    }

    /// Runs a query and returns every row.
    public func fetchRows(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> [Row] {
        try perform(callerStatement(sql, arguments).map(\.namedRows))
    }

    /// Runs a query and returns every row, as the blocking form does.
    nonisolated(nonsending) public func fetchRows(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) async throws -> [Row] {
        try await perform(callerStatement(sql, arguments).map(\.namedRows))
    }

    /// Runs a query and returns the first column of the first row, or nil when there is no row.
    public func fetchValue(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> DatabaseValue? {
        try perform(callerStatement(sql, arguments).map(\.scalar))
    }

    /// Runs a query and returns the first column of the first row, as the blocking form does.
    nonisolated(nonsending) public func fetchValue(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) async throws
        -> DatabaseValue?
    {
        try await perform(callerStatement(sql, arguments).map(\.scalar))
    }

    /// Runs a query and decodes each row as a `T` (columns by name, as for records).
    public func fetchAll<T: Decodable>(
        _ type: T.Type, sql: String, arguments: [any DatabaseValueConvertible] = []
    ) throws -> [T] {
        try perform(callerStatement(sql, arguments).map { try $0.namedRows.map { try $0.decode(T.self) } })
    }

    /// Runs a query and decodes each row as a `T`, as the blocking form does.
    nonisolated(nonsending) public func fetchAll<T: Decodable>(
        _ type: T.Type, sql: String, arguments: [any DatabaseValueConvertible] = []
    ) async throws -> [T] {
        try await perform(callerStatement(sql, arguments).map { try $0.namedRows.map { try $0.decode(T.self) } })
    }

    /// The last commit sequence assigned in the store (0 before the first commit), as this transaction sees it.
    public func lastSequence() throws -> Int64 {
        try perform(statement("SELECT seq FROM _store_head WHERE id = 1").map(PostgresTransaction.sequence))
    }

    /// The last commit sequence assigned in the store, as the blocking form returns it.
    nonisolated(nonsending) public func lastSequence() async throws -> Int64 {
        try await perform(statement("SELECT seq FROM _store_head WHERE id = 1").map(PostgresTransaction.sequence))
    }

    private static func sequence(_ result: ServerResult) -> Int64 {
        guard case .integer(let sequence)? = result.scalar else { return 0 }
        return sequence
    }

    // MARK: - Savepoints

    /// Runs `body` inside a savepoint: if it throws, only its work is rolled back, then the error is rethrown.
    ///
    /// Savepoints nest. Related PostgreSQL documentation: <https://www.postgresql.org/docs/current/sql-savepoint.html>
    @discardableResult
    public func savepoint<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try checkActive()
        savepointDepth += 1
        let name = "store_savepoint_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try connection.execute("SAVEPOINT \(name)")
        do {
            let result = try body(self)
            try connection.execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            if !connection.isClosed {
                _ = try? connection.execute("ROLLBACK TO SAVEPOINT \(name)")
                _ = try? connection.execute("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }

    /// Runs `body` inside a savepoint, as the blocking form does, with `body` and every statement awaited.
    @discardableResult
    nonisolated(nonsending) public func savepoint<T>(_ body: nonisolated(nonsending) (PostgresTransaction) async throws -> T) async throws -> T {
        try checkActive()
        savepointDepth += 1
        let name = "store_savepoint_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try await connection.execute("SAVEPOINT \(name)")
        do {
            let result = try await body(self)
            try await connection.execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            if !connection.isClosed {
                _ = try? await connection.execute("ROLLBACK TO SAVEPOINT \(name)")
                _ = try? await connection.execute("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }
}
#endif
