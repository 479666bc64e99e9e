import Foundation
import ObservableStoreCore
import StoreSQLite

extension SQLiteStore {
    /// The library's set, then the configured ones.
    package var migrationSets: [MigrationSet] { [MigrationSet.store] + configuration.migrationSets }

    /// The migration history, oldest first within each set: the core's `appliedMigrations()`.
    package func readMigrationHistory() throws -> [AppliedMigration] {
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

    /// `PRAGMA user_version`: the highest applied version of the library's own migration set (the core's
    /// `schemaVersion()`).
    package func readSchemaVersion() throws -> Int {
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

extension SQLiteStore {
    /// The core's `rehearsePendingMigrations()` on SQLite: the pending migrations applied to a temporary copy of the
    /// store, made with the backup API; the history is checked before any copy is made.
    package func rehearseMigrations() throws -> [AppliedMigration] {
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
        let rehearsed = try SQLiteStore(path: copy, configuration: rehearsal)
        defer { rehearsed.close() }
        let applied = try rehearsed.appliedMigrations()
        return status.pending.compactMap { entry in applied.first { $0.set == entry.set && $0.version == entry.version } }
    }

    /// The core's `acceptMigrationChange(version:set:)` on SQLite, in one write; the bookkeeping counter moves, so that
    /// other processes' feeds do not take the write for a foreign one.
    package func recordChecksum(of migration: Migration, in set: String) throws -> (old: String, new: String) {
        let version = migration.version
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
