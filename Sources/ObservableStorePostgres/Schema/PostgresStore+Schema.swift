#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

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

    /// Rehearses applying the pending migrations (`storectl migrate plan`): applies them to this database in one
    /// transaction under the migration lock, runs the checks PostgreSQL defers to COMMIT, reads back the history rows
    /// written (with each file's duration), and rolls everything back. The real SQL meets the real data. Returns the
    /// rows in apply order, empty when nothing is pending.
    ///
    /// Unlike SQLite's rehearsal on a copy, this one runs on the live database:
    /// - the files' locks (an `ALTER TABLE`'s ACCESS EXCLUSIVE, say) are held until the rollback, as `migrate up`
    ///   would hold them; ``PostgresStoreConfiguration/migrationLockTimeout`` bounds each wait for one
    ///   (``/ObservableStoreCore/StoreError/Code/busy``);
    /// - what ROLLBACK does not undo stays: a `setval` a file calls, and sequence values drawn;
    /// - the files run in one transaction, where `migrate up` commits each: a file that needs an earlier one
    ///   committed (a new enum value used by the next file) fails here only.
    ///
    /// The connection it used is closed afterwards, so that no session state a file set reaches another caller.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/migrationConflict`` for a file that fails (naming it) or a
    /// history that conflicts with the code, and ``/ObservableStoreCore/StoreError/Code/schemaTooNew``.
    public func rehearsePendingMigrations() throws -> [AppliedMigration] {
        try pool.withConnection { connection in
            defer { connection.close() }
            return try PostgresMigrator(connection: connection, configuration: configuration).rehearse()
        }
    }

    /// Re-records the checksum of applied migration `version` of `set` as the known file's, after a person reviewed
    /// the edit (`storectl migrate repair --accept`). Returns the old and new checksums. Runs in one transaction
    /// holding the migration lock (waited for at most ``PostgresStoreConfiguration/migrationLockTimeout``, else
    /// ``/ObservableStoreCore/StoreError/Code/busy``); never marks an unapplied file applied.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/notFound`` when no known set has that migration, or it is not
    /// applied.
    public func acceptMigrationChange(version: Int, set: String = MigrationSet.storeSetName) throws -> (old: String, new: String) {
        let migration = try ([MigrationSet.postgresStore] + configuration.migrationSets).migration(version, of: set)
        return try write { tx in
            try PostgresMigrator(connection: tx.connection, configuration: configuration).lockMigrations()
            let history = PostgresMigrator.historyTable
            guard
                let old = try tx.fetchValue("SELECT checksum FROM \(history) WHERE set_name = ? AND version = ?", [set, version])
                    .flatMap(String.fromDatabaseValue)
            else {
                throw StoreError(.notFound, "\(migration.id) is not applied; repair only re-records applied migrations")
            }
            try tx.execute("UPDATE \(history) SET checksum = ? WHERE set_name = ? AND version = ?", [migration.checksum, set, version])
            return (old, migration.checksum)
        }
    }

    /// The store's schema version: the last applied migration of its own set ("store"), 0 before the first.
    public func schemaVersion() throws -> Int {
        try appliedMigrations().filter { $0.set == MigrationSet.storeSetName }.map(\.version).max() ?? 0
    }
}
#endif
