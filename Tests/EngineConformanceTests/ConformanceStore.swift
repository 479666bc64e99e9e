import Foundation
import ObservableStoreCore

/// The API both engines share, as the conformance cases use it: each requirement is the signature of the SQLite
/// `Store`'s public API (`Sources/ObservableStore`), so `extension Store: ConformanceStore {}` needs no body. The
/// PostgreSQL engine's store offers the same names and signatures, so it conforms the same way.
///
/// Swift has no higher-kinded types: a requirement cannot return "the engine's `Repository<R>`" for every `R`. The
/// two engine types that are generic (`Repository<R>`, `CommittedWrite<T>`) are therefore required for the one
/// record type and the one value type the cases use (``NodeRepository``, ``CommittedVoid``); an engine's generic
/// method witnesses them (`EngineTypes.swift` names them, since Swift cannot infer them from a generic witness).
protocol ConformanceStore: AnyObject, Sendable {
    /// The engine's transaction (SQLite: `Transaction`).
    associatedtype Transaction: ConformanceTransaction
    /// The engine's `Repository<NodeVO>`.
    associatedtype NodeRepository: ConformanceRepository where NodeRepository.R == NodeVO
    /// The engine's `CommittedWrite<Void>`.
    associatedtype CommittedVoid: ConformanceCommittedWrite

    // Writing and reading.

    /// Runs `body` in one writing transaction (`origin` travels with the commit); commits when it returns,
    /// rolls back when it throws.
    func write<T>(origin: String?, _ body: (Transaction) throws -> T) throws -> T
    /// The same, returning the commit's sequence with the closure's value.
    func writeReturningCommit(origin: String?, _ body: (Transaction) throws -> Void) throws -> CommittedVoid
    /// Runs `body` on one consistent snapshot.
    func read<T>(_ body: (Transaction) throws -> T) throws -> T
    /// The repository of `NodeVO` records, its writes carrying `origin`.
    func repository(_ type: NodeVO.Type, origin: String?) -> NodeRepository
    /// The last commit sequence assigned.
    func lastSequence() throws -> Int64
    /// Closes the store: listeners stop, later calls throw.
    func close()

    // Listeners.

    /// Registers (or replaces) the listener `name`.
    func listen(
        _ name: String, filter: ChangeFilter, options: ListenerOptions, handler: @escaping @Sendable (StoreEvent) throws -> Void
    ) -> ListenerToken
    /// Registers (or replaces) the typed listener `name` for the records of `R`.
    func listen<R: Record>(
        _ name: String, to type: R.Type, filter: ChangeFilter, options: ListenerOptions,
        handler: @escaping @Sendable (RecordEvent<R>) throws -> Void
    ) -> ListenerToken
    /// Removes the listener `name`; whether there was one.
    func removeListener(_ name: String) -> Bool
    /// The registered listeners' names, sorted.
    var listenerNames: [String] { get }
    /// The commits matching `filter` as an `AsyncSequence`.
    func changes(filter: ChangeFilter, bufferSize: Int) -> StoreEvents

    // Bind and fire, observed values.

    /// The record with `key` now, then after every commit that changes it.
    func bindAndFire<R: Record>(
        _ name: String, _ type: R.Type, key: R.Key, options: ListenerOptions, handler: @escaping @Sendable (R?) -> Void
    ) throws -> ListenerToken
    /// One property of the record with `key` now, then each time it changes.
    func bindAndFire<R: Record, Value: Equatable & Sendable>(
        _ name: String, _ type: R.Type, key: R.Key, _ keyPath: any KeyPath<R, Value> & Sendable,
        options: ListenerOptions, handler: @escaping @Sendable (Value?) -> Void
    ) throws -> ListenerToken
    /// The query's records now, then after every commit that changes `R`'s table.
    func bindAndFire<R: Record>(
        _ name: String, query: Query<R>, options: ListenerOptions, handler: @escaping @Sendable ([R]) -> Void
    ) throws -> ListenerToken
    /// The query's records as an `AsyncSequence` kept current.
    func values<R: Record & Equatable>(of query: Query<R>) throws -> ObservedValues<[R]>
    /// The record with `key` as an `AsyncSequence` kept current.
    func value<R: Record>(of type: R.Type, key: R.Key) throws -> ObservedValues<R?>

    // Durable listeners.

    /// Registers the durable listener `name`: its cursor is kept in the store.
    func listenDurably(
        _ name: String, filter: ChangeFilter, startingAt start: DurableStart,
        handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) throws -> ListenerToken
    /// Every durable listener's cursor and lag.
    func durableListeners() throws -> [DurableListenerInfo]
    /// Moves a durable listener's cursor.
    func resetDurableListener(_ name: String, to sequence: Int64) throws
    /// Deletes a durable listener and its cursor; whether it existed.
    func deleteDurableListener(_ name: String) throws -> Bool

    // Migrations.

    /// The applied migrations of every set, in order.
    func appliedMigrations() throws -> [AppliedMigration]
    /// The library's schema version (the last applied migration of its own set).
    func schemaVersion() throws -> Int
    /// Where every migration of the library's set and the configured sets stands.
    func migrationStatus() throws -> MigrationStatus
    /// Rehearses applying the pending migrations and returns the history rows written; changes nothing.
    func rehearsePendingMigrations() throws -> [AppliedMigration]
    /// Re-records an applied migration's checksum as its file's; returns the old and new ones.
    func acceptMigrationChange(version: Int, set: String) throws -> (old: String, new: String)
}
