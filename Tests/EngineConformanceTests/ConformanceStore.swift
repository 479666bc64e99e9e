import Foundation
import ObservableStoreCore

/// The API both engines share, as the conformance cases use it: the core's ``RecordStore`` (reads and writes,
/// listeners, bind-and-fire, observed values, durable listeners), which both stores conform to, and what is not in it
/// yet (repositories, migrations), each requirement the signature of the SQLite `Store`'s public API, so that
/// `extension Store: ConformanceStore {}` needs no body. The PostgreSQL engine's store conforms the same way.
///
/// Swift has no higher-kinded types: a requirement cannot return "the engine's `Repository<R>`" for every `R`. The
/// engine's `Repository<R>` is therefore required for the one record type the cases use (``NodeRepository``), which
/// each engine names (Swift cannot infer it from a generic witness).
protocol ConformanceStore: RecordStore {
    /// The engine's `Repository<NodeVO>`.
    associatedtype NodeRepository: ConformanceRepository where NodeRepository.R == NodeVO

    /// The repository of `NodeVO` records, its writes carrying `origin`.
    func repository(_ type: NodeVO.Type, origin: String?) -> NodeRepository

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
