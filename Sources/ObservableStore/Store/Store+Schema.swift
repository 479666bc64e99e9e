import Foundation
import ObservableStoreCore
import StoreSQLite

extension Store {
    /// The migration history, oldest first within each set.
    public func appliedMigrations() throws -> [AppliedMigration] {
        try read { tx in
            guard try tx.fetchValue(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [Migrator.historyTable]) != nil
            else { return [] }
            return try tx.fetchRows(
                "SELECT \(AppliedMigration.historyColumns) FROM \(Migrator.historyTable) ORDER BY set_name, version"
            ).map(AppliedMigration.init(historyRow:))
        }
    }

    /// The schema as SQL: every table, index, view and trigger (SQLite's internal ones excepted),
    /// tables first, each group by name. The golden snapshot `Migrations/schema.sql` holds this text.
    public func schemaSQL() throws -> String {
        try read { tx in
            try tx.fetchRows(
                """
                SELECT sql FROM sqlite_master
                WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, name
                """
            ).compactMap { $0.value("sql", as: String.self) }.map { $0 + ";\n" }.joined(separator: "\n")
        }
    }

    /// `PRAGMA user_version`: the highest applied version of the library's own migration set.
    public func schemaVersion() throws -> Int {
        try read { tx in try tx.fetchValue("PRAGMA user_version").flatMap(Int.fromDatabaseValue) ?? 0 }
    }

    /// Copies the store to a new file at `destination` with SQLite's online backup API, while other
    /// writers go on, then runs `PRAGMA quick_check` on the copy.
    ///
    /// Refuses (``/ObservableStoreCore/StoreError/Code/invalidInput``) when `destination` exists.
    public func backup(to destination: String) throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError(.invalidInput, "\(destination) exists; choose another path")
        }
        let copy = try StoreError.wrapping {
            try Connection(path: destination, mode: .readWrite(create: true), busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        }
        defer { copy.close() }
        try StoreError.wrapping {
            if readers.maximum > 0 {
                try readers.withReader { try $0.backup(to: copy, pagesPerStep: -1) }
            } else {
                try writer.sync { try $0.connection.backup(to: copy, pagesPerStep: -1) }
            }
            let check = try copy.prepare("PRAGMA quick_check")
            let result = try check.step() ? check.text(at: 0) : ""
            check.reset()
            guard result == "ok" else {
                throw StoreError(.corrupt, "the backup at \(destination) failed its quick_check: \(result)")
            }
        }
    }
}

extension Store {
    /// Where every migration of the library's set and the configured sets stands in this store.
    /// History rows of sets the code does not know are not listed.
    public func migrationStatus() throws -> MigrationStatus {
        MigrationStatus(
            sets: [MigrationSet.store] + configuration.migrationSets,
            history: try appliedMigrations().map { ($0.set, $0.version, $0.name, $0.checksum, $0.appliedAt) })
    }

    /// Rehearses applying the pending migrations (`storectl migrate plan`): applies them to a temporary copy of the
    /// store, made with the backup API, so the real SQL meets the real data. Returns the history rows the rehearsal
    /// wrote (with each file's duration), in apply order; empty when nothing is pending. This store is not changed.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/schemaTooNew`` or
    /// ``/ObservableStoreCore/StoreError/Code/migrationConflict`` when this store's history is newer than the code or
    /// conflicts with it (checked before any copy is made), and ``/ObservableStoreCore/StoreError/Code/migrationConflict``
    /// for a file that fails on the copy (naming it).
    public func rehearsePendingMigrations() throws -> [AppliedMigration] {
        let status = try migrationStatus()
        try status.requireMigratable()
        guard !status.pending.isEmpty else { return [] }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("store-rehearsal-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-migrate.lock"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        try backup(to: copy)
        var rehearsal = configuration
        rehearsal.createIfMissing = false
        rehearsal.migrationPolicy = .migrate
        rehearsal.backupBeforeMigrating = false
        let rehearsed = try Store(path: copy, configuration: rehearsal)
        defer { rehearsed.close() }
        let applied = try rehearsed.appliedMigrations()
        return status.pending.compactMap { entry in applied.first { $0.set == entry.set && $0.version == entry.version } }
    }

    /// Re-records the checksum of applied migration `version` of `set` as the known file's, after a
    /// person reviewed the edit. Returns the old and new checksums. Never marks an unapplied file applied.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/notFound`` when no known set has that migration, or it is not
    /// applied.
    public func acceptMigrationChange(version: Int, set: String = MigrationSet.storeSetName) throws -> (old: String, new: String) {
        let migration = try ([MigrationSet.store] + configuration.migrationSets).migration(version, of: set)
        return try write { tx in
            guard
                let old = try tx.fetchValue(
                    "SELECT checksum FROM \(Migrator.historyTable) WHERE set_name = ? AND version = ?", [set, version]
                ).flatMap(String.fromDatabaseValue)
            else {
                throw StoreError(.notFound, "\(migration.id) is not applied; repair only re-records applied migrations")
            }
            try tx.execute(
                "UPDATE \(Migrator.historyTable) SET checksum = ? WHERE set_name = ? AND version = ?",
                [migration.checksum, set, version])
            try? ChangeLog.bumpBookkeeping(on: tx.connection)  // not a foreign write, for other processes' feeds
            return (old, migration.checksum)
        }
    }
}
