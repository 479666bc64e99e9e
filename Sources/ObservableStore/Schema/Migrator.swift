import Foundation
import Logging
import ObservableStoreCore
import StoreSQLite

/// Applies migration sets to the writer connection, following the contract of STORECTL.md C.5:
/// lock, validate before writing, back up, then one `BEGIN IMMEDIATE` transaction per file that
/// re-reads the history first, runs the file, checks foreign keys and records itself.
struct Migrator: MigrationRunner {
    static let historyTable = "_store_migrations"
    /// The built-in migration 0000: the history table and the application id.
    static let bootstrapSQL = """
        CREATE TABLE IF NOT EXISTS _store_migrations (
          set_name     TEXT    NOT NULL,
          version      INTEGER NOT NULL,
          name         TEXT    NOT NULL,
          checksum     TEXT    NOT NULL,
          applied_at   TEXT    NOT NULL,
          duration_ms  INTEGER NOT NULL,
          applied_by   TEXT    NOT NULL,
          PRIMARY KEY (set_name, version)
        ) STRICT;
        PRAGMA application_id = \(SQLiteStore.applicationID);
        """

    let connection: Connection
    /// The database file, or nil for an in-memory store (no lock, no backup).
    let path: String?
    let sets: [MigrationSet]
    let configuration: SQLiteStoreConfiguration

    /// What the sets say about the history: status, validation, pending files.
    var plan: MigrationPlan { MigrationPlan(sets: sets) }

    /// Does what `policy` says at open (``MigrationRunner/run(_:)``), after checking the backups' keep count.
    func open(policy: SQLiteStoreConfiguration.MigrationPolicy) throws {
        if let kept = configuration.keptMigrationBackups { try MigrationBackup.checkKeepCount(kept) }
        try run(policy)
    }

    /// Validates, then applies what is pending (up to `limit`), under the migration lock.
    func migrate(limit: (set: String, version: Int)?) throws {
        try checkStoreIdentity()
        let needsBootstrap = try !historyTableExists()
        if !needsBootstrap {
            let history = try readHistory()
            try plan.validate(history)
            if plan.pending(history, limit: limit).isEmpty { return }
        }
        let lock = try path.map { try MigrationLock(databasePath: $0, timeout: configuration.migrationLockTimeout) }
        defer { withExtendedLifetime(lock) {} }
        // A store already in use has a change log: each file applied is logged as a schema change, so that
        // other processes' listeners and bound values read again, in order. A new store's are not.
        let logsSchemaChanges = try ChangeLog.exists(on: connection)
        try bootstrap()
        let history = try readHistory()
        try plan.validate(history)
        let work = plan.pending(history, limit: limit)
        guard let first = work.first else { return }
        let backsUp = configuration.backupBeforeMigrating && !history.isEmpty
        if let path, backsUp {
            try backup(path: path, before: first)
        }
        for (set, migration) in work {
            try apply(migration, of: set, logged: logsSchemaChanges)
        }
        if let path, backsUp, let kept = configuration.keptMigrationBackups {
            pruneBackups(of: path, keeping: kept)
        }
    }

    // MARK: - Reading and validating the history

    func historyTableExists() throws -> Bool {
        try StoreError.wrapping {
            let statement = try connection.cachedStatement(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(Migrator.historyTable)'")
            defer { statement.reset() }
            return try statement.step()
        }
    }

    func readHistory() throws -> [MigrationPlan.HistoryRow] {
        guard try historyTableExists() else { return [] }
        return try StoreError.wrapping {
            let statement = try connection.cachedStatement(
                "SELECT set_name, version, name, checksum FROM \(Migrator.historyTable) ORDER BY set_name, version")
            defer { statement.reset() }
            var rows: [MigrationPlan.HistoryRow] = []
            while try statement.step() {
                rows.append(
                    MigrationPlan.HistoryRow(
                        set: statement.text(at: 0), version: Int(statement.int64(at: 1)), name: statement.text(at: 2),
                        checksum: statement.text(at: 3)))
            }
            return rows
        }
    }

    /// `PRAGMA application_id` of the file (0 when never set).
    private func applicationID() throws -> Int32 {
        try StoreError.wrapping {
            let statement = try connection.cachedStatement("PRAGMA application_id")
            defer { statement.reset() }
            return try statement.step() ? Int32(truncatingIfNeeded: statement.int64(at: 0)) : 0
        }
    }

    /// Refuses a file that belongs to another application (a different non-zero application id).
    func checkStoreIdentity() throws {
        let id = try applicationID()
        guard id == 0 || id == SQLiteStore.applicationID else {
            throw StoreError(
                .notAStore,
                "\(path ?? ":memory:") is not an ObservableStore store (application_id 0x\(String(UInt32(bitPattern: id), radix: 16)))")
        }
    }

    // MARK: - Writing

    /// Creates the history table and sets the application id, unless both are there already: a write to a
    /// store in use that the change log does not explain would look like another program's to other processes.
    private func bootstrap() throws {
        guard try !historyTableExists() || applicationID() != SQLiteStore.applicationID else { return }
        try connection.inTransaction {
            try StoreError.wrapping { try connection.execute(Migrator.bootstrapSQL) }
            if try ChangeLog.hasMarkers(on: connection) { try ChangeLog.bumpBookkeeping(on: connection) }
        }
    }

    private func backup(path: String, before first: (MigrationSet, Migration)) throws {
        let backupPath = MigrationBackup.path(for: path, set: first.0.name, version: first.1.version)
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: backupPath + suffix) }
        try StoreError.wrapping {
            let destination = try Connection(path: backupPath, mode: .readWrite(create: true), busyTimeoutMilliseconds: 1000)
            defer { destination.close() }
            try connection.backup(to: destination, pagesPerStep: -1)
        }
        configuration.logger.info("backed up before migrating", metadata: ["backup": "\(backupPath)"])
    }

    /// Removes the backups beyond `kept` per set after a successful run (the lock is held). A failure is
    /// logged, not thrown: the migrations are applied.
    private func pruneBackups(of path: String, keeping kept: Int) {
        do {
            for backup in try MigrationBackup.prune(of: path, keeping: kept) {
                configuration.logger.info("removed an old migration backup", metadata: ["backup": "\(backup.path)"])
            }
        } catch {
            configuration.logger.warning("pruning the migration backups failed", metadata: ["error": "\(error)"])
        }
    }

    /// Applies one file. Returns false when another process applied it meanwhile.
    @discardableResult
    private func apply(_ migration: Migration, of set: MigrationSet, logged: Bool) throws -> Bool {
        let started = ContinuousClock.now
        try StoreError.wrapping { try connection.execute("PRAGMA foreign_keys = OFF") }
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        if migration.runsInTransaction {
            let applied = try connection.inTransaction { () -> Bool in
                // Another process may have applied it while this one waited for the lock or the transaction.
                guard try !isApplied(migration, of: set) else { return false }
                try run(migration, of: set, allow: Migrator.isAllowedInTransaction)
                try checkForeignKeys(migration, of: set)
                try record(migration, of: set, started: started, logged: logged)
                return true
            }
            guard applied else { return false }
        } else {
            guard try !isApplied(migration, of: set) else { return false }
            try run(migration, of: set, allow: Migrator.isAllowedWithoutTransaction)
            try connection.inTransaction { try record(migration, of: set, started: started, logged: logged) }
        }
        configuration.logger.info(
            "applied migration", metadata: ["set": "\(set.name)", "migration": "\(migration.id)"])
        return true
    }

    private func isApplied(_ migration: Migration, of set: MigrationSet) throws -> Bool {
        try StoreError.wrapping {
            let statement = try connection.cachedStatement(
                "SELECT 1 FROM \(Migrator.historyTable) WHERE set_name = ? AND version = ?")
            defer { statement.reset() }
            try statement.bind([.text(set.name), .integer(Int64(migration.version))])
            return try statement.step()
        }
    }

    private func run(_ migration: Migration, of set: MigrationSet, allow: (String) -> Bool) throws {
        do {
            try connection.executeScript(migration.sql) { statement in
                guard allow(statement.leadingKeyword) else {
                    throw StoreError(
                        .migrationConflict,
                        "\(migration.id).sql: `\(statement.leadingKeyword)` is not allowed "
                            + (migration.runsInTransaction
                                ? "in a migration (each file already runs in its own transaction)"
                                : "in a no-transaction migration (only PRAGMA and VACUUM)"))
                }
            }
        } catch let error as SQLiteError {
            let line = error.offset.map { Migrator.line(atByteOffset: $0, in: migration.sql) }
            throw StoreError(
                .migrationConflict,
                "\(migration.id) failed\(line.map { " at line \($0)" } ?? ""): \(error.message); "
                    + "nothing from \(Migration.format(migration.version)) was applied; "
                    + unchangedText(before: migration, of: set),
                sqliteCode: error.extendedCode)
        }
    }

    private func unchangedText(before migration: Migration, of set: MigrationSet) -> String {
        let previous = migration.version - 1
        let setText = set.name == MigrationSet.storeSetName ? "" : " of set \(set.name)"
        switch previous {
        case 0: return "the store is unchanged"
        case 1: return "0001\(setText) is unchanged"
        default: return "0001–\(Migration.format(previous))\(setText) are unchanged"
        }
    }

    private func checkForeignKeys(_ migration: Migration, of set: MigrationSet) throws {
        let violations = try StoreError.wrapping {
            let statement = try connection.prepare("PRAGMA foreign_key_check")
            var found: [String] = []
            while try statement.step(), found.count < 5 {
                found.append("\(statement.text(at: 0)) rowid \(statement.int64(at: 1)) → \(statement.text(at: 2))")
            }
            return found
        }
        guard violations.isEmpty else {
            throw StoreError(
                .constraint,
                "\(migration.id) leaves foreign key violations (\(violations.joined(separator: "; "))); "
                    + "nothing from \(Migration.format(migration.version)) was applied")
        }
    }

    /// Records `migration` in the history, and when `logged` (and the change log has its current
    /// layout) as a schema-change commit in the change log: origin `migration:SET/ID`.
    private func record(_ migration: Migration, of set: MigrationSet, started: ContinuousClock.Instant, logged: Bool) throws {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        try StoreError.wrapping {
            try connection.cachedStatement(
                "INSERT INTO \(Migrator.historyTable) (set_name, version, name, checksum, applied_at, duration_ms, applied_by) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).execute([
                .text(set.name), .integer(Int64(migration.version)), .text(migration.name), .text(migration.checksum),
                .text(Timestamp.format(Date())), .integer(milliseconds), .text(configuration.appliedBy),
            ])
            if set.name == MigrationSet.storeSetName {
                try connection.execute("PRAGMA user_version = \(migration.version)")
            }
        }
        if logged, try ChangeLog.hasMarkers(on: connection) {
            _ = try ChangeLog.appendMarker(.schemaChange, origin: "migration:\(set.name)/\(migration.id)", on: connection)
        }
    }

    // MARK: - Statement inspection

    static func isAllowedInTransaction(_ keyword: String) -> Bool {
        !["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "VACUUM", "ATTACH", "DETACH"].contains(keyword)
    }

    static func isAllowedWithoutTransaction(_ keyword: String) -> Bool {
        keyword == "PRAGMA" || keyword == "VACUUM"
    }

    /// The 1-based line of a UTF-8 byte offset in `text`.
    static func line(atByteOffset offset: Int, in text: String) -> Int {
        text.utf8.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }
}
