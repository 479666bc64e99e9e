/// A store of records on either engine: `SQLiteStore` (SQLite) and `PostgresStore` conform. Reads, writes, the listening
/// API of ``ListeningStore``, bind-and-fire, observed values (`values(of:)`) and the live models are
/// the same on both, so code that takes `some RecordStore` works on either engine.
///
/// ```swift
/// func addStart<S: RecordStore>(to store: S) throws -> NodeVO {
///     try store.write(origin: nil) { tx in try tx.insert(NodeVO(name: "Start", x: 0, y: 0)) }
/// }
/// ```
///
/// What only one engine has (SQLite's checkpoints and backups, PostgreSQL's `installCapture`) stays on the
/// engine's type. Only the library's stores conform: ``engineHandle`` cannot be made outside it.
public protocol RecordStore: ListeningStore {
    /// The engine's transaction: `SQLiteTransaction` on SQLite, `PostgresTransaction` on PostgreSQL.
    associatedtype Transaction: StoreTransaction

    /// Runs `body` in a read transaction: every query in it sees the same snapshot, and writes are refused.
    func read<T>(_ body: (Transaction) throws -> T) throws -> T
    /// Runs `body` in a write transaction, committed when it returns and rolled back when it throws; listeners
    /// receive the commit after it. `origin` tags the commit (``Commit/origin``).
    func write<T>(origin: String?, _ body: (Transaction) throws -> T) throws -> T
    /// Like `write(origin:_:)`, and also returns the sequence of the commit the write made (nil when it changed
    /// nothing).
    func writeReturningCommit<T>(origin: String?, _ body: (Transaction) throws -> T) throws -> CommittedWrite<T>
    /// Like `read(_:)`, with the caller suspended instead of blocking a thread.
    func read<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T
    /// Like `write(origin:_:)`, with the caller suspended instead of blocking a thread.
    func write<T: Sendable>(origin: String?, _ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T
    /// Like `writeReturningCommit(origin:_:)`, with the caller suspended instead of blocking a thread.
    func writeReturningCommit<T: Sendable>(
        origin: String?, _ body: @escaping @Sendable (Transaction) throws -> T
    ) async throws -> CommittedWrite<T>
    /// The last commit sequence assigned in the store (0 before the first commit).
    func lastSequence() throws -> Int64
    /// Prunes the change log as the store's retention policy says, now; returns how many commit records were
    /// deleted. The store also does this by itself every ``RetentionPolicy/pruneInterval`` of its commits.
    @discardableResult
    func pruneChangeLog() throws -> Int
    /// Closes the store: its listeners and observed values end, and later calls throw.
    func close()

    /// The store's engine, which the protocol's members read through (its members are the library's own).
    var engineHandle: StoreEngineHandle<Transaction> { get }
}
