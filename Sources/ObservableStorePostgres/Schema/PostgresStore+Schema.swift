#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

// The engine's side of the core's migration API (`RecordStore+Migrations`).
extension PostgresStore {
    /// The engine's set (``/ObservableStoreCore/MigrationSet/postgresStore``), then the configured ones.
    package var migrationSets: [MigrationSet] { [MigrationSet.postgresStore] + configuration.migrationSets }

    /// The applied migrations of every set, ordered by set and version (empty before the first migration).
    package func readMigrationHistory() throws -> [AppliedMigration] {
        try read { tx in
            guard try tx.fetchValue("SELECT to_regclass($1) IS NOT NULL", [PostgresMigrator.historyTable]) == .integer(1) else {
                return []
            }
            return try tx.fetchRows(
                "SELECT \(AppliedMigration.historyColumns) FROM \(PostgresMigrator.historyTable) ORDER BY set_name, version"
            ).map(AppliedMigration.init(historyRow:))
        }
    }

    /// The core's `rehearsePendingMigrations()` on PostgreSQL: applies the pending migrations to this database in one
    /// transaction under the migration lock, runs the checks PostgreSQL defers to COMMIT, reads back the history rows
    /// written (with each file's duration), and rolls everything back.
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
    package func rehearseMigrations() throws -> [AppliedMigration] {
        try pool.withConnection { connection in
            defer { connection.close() }
            return try PostgresMigrator(connection: connection, configuration: configuration).rehearse()
        }
    }

    /// The core's `acceptMigrationChange(version:set:)` on PostgreSQL: one transaction holding the migration lock
    /// (waited for at most ``PostgresStoreConfiguration/migrationLockTimeout``, else
    /// ``/ObservableStoreCore/StoreError/Code/busy``).
    package func recordChecksum(of migration: Migration, in set: String) throws -> (old: String, new: String) {
        let version = migration.version
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
    package func readSchemaVersion() throws -> Int {
        try readMigrationHistory().filter { $0.set == MigrationSet.storeSetName }.map(\.version).max() ?? 0
    }
}
#endif
