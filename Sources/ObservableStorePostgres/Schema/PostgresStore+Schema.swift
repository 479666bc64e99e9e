#if PostgreSQL
import Foundation
import ObservableStoreCore

// The migration history, as the SQLite store reports it.
extension PostgresStore {
    /// The applied migrations of every set, ordered by set and version (empty before the first migration).
    public func appliedMigrations() throws -> [AppliedMigration] {
        try read { tx in
            guard try tx.fetchValue("SELECT to_regclass($1) IS NOT NULL", [PostgresMigrator.historyTable]) == .integer(1) else {
                return []
            }
            return try tx.fetchRows(
                "SELECT \(AppliedMigration.historyColumns) FROM \(PostgresMigrator.historyTable) ORDER BY set_name, version"
            ).map(AppliedMigration.init(historyRow:))
        }
    }

    /// Where every migration of the engine's set (``/ObservableStoreCore/MigrationSet/postgresStore``) and the
    /// configured sets stands in this database, as the SQLite store's `migrationStatus()` reports it. History rows
    /// of sets the code does not know are not listed.
    public func migrationStatus() throws -> MigrationStatus {
        MigrationStatus(
            sets: [MigrationSet.postgresStore] + configuration.migrationSets,
            history: try appliedMigrations().map { ($0.set, $0.version, $0.name, $0.checksum, $0.appliedAt) })
    }

    /// The store's schema version: the last applied migration of its own set ("store"), 0 before the first.
    public func schemaVersion() throws -> Int {
        try appliedMigrations().filter { $0.set == MigrationSet.storeSetName }.map(\.version).max() ?? 0
    }
}
#endif
