#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres

/// Applies migration sets to a PostgreSQL database with the SQLite migrator's contract (STORECTL.md C.5): the same
/// history table (`_store_migrations`, created by the built-in migration 0000), checksums, newer-schema refusal and
/// conflict rules, validated before anything is written.
///
/// Each file runs in one transaction (DDL is transactional) that first takes `pg_advisory_xact_lock` (one fixed key
/// for every process and host), then reads the history again, validates it, runs the file and records it. A process
/// that waited on the lock finds the file applied and has nothing left to do.
struct PostgresMigrator: MigrationRunner {
    static let historyTable = "_store_migrations"
    /// The key of the advisory lock that serializes migrations ('STORMIGR').
    static let lockKey: Int64 = 0x5354_4F52_4D49_4752
    /// The built-in migration 0000: the history table.
    static let bootstrapSQL = """
        CREATE TABLE IF NOT EXISTS _store_migrations (
          set_name     text        NOT NULL,
          version      integer     NOT NULL,
          name         text        NOT NULL,
          checksum     text        NOT NULL,
          applied_at   timestamptz NOT NULL,
          duration_ms  bigint      NOT NULL,
          applied_by   text        NOT NULL,
          PRIMARY KEY (set_name, version)
        )
        """

    let connection: ServerConnection
    let configuration: PostgresStoreConfiguration

    /// The engine's own set, then the service's sets.
    var sets: [MigrationSet] { [MigrationSet.postgresStore] + configuration.migrationSets }

    /// What the sets say about the history: status, validation, pending files.
    var plan: MigrationPlan { MigrationPlan(sets: sets) }

    /// Does what the configuration's ``PostgresStoreConfiguration/migrationPolicy`` says (``MigrationRunner/run(_:)``).
    func open() throws {
        try run(configuration.migrationPolicy)
    }

    /// Validates, then applies what is pending (up to `limit`), one file per locked transaction.
    func migrate(limit: (set: String, version: Int)?) throws {
        let history = try readHistory()
        try plan.validate(history)
        guard !plan.pending(history, limit: limit).isEmpty else { return }
        let logged = try logsSchemaChanges()
        while try applyNext(limit: limit, logged: logged) {}
    }

    /// A database already in use has a change log: each file applied is logged as a schema change, so that
    /// listeners read again. A new database's are not.
    private func logsSchemaChanges() throws -> Bool {
        try connection.query("SELECT to_regclass('_store_commits') IS NOT NULL").scalar == .integer(1)
    }

    /// Rehearses ``migrate(limit:)`` (`storectl migrate plan`): in one transaction under the lock, validates the
    /// history, applies every pending file in order, checks what PostgreSQL defers to COMMIT (`SET CONSTRAINTS ALL
    /// IMMEDIATE`: deferred foreign keys, unique constraints, constraint triggers), reads back the history rows
    /// written, and rolls everything back. The real SQL meets the real data, so errors and durations are real.
    ///
    /// Waits for each lock at most ``PostgresStoreConfiguration/migrationLockTimeout``. What ROLLBACK does not undo
    /// stays: a `setval` a file calls, and sequence values drawn. The caller must not reuse the connection (state a
    /// file set on its session).
    func rehearse() throws -> [AppliedMigration] {
        try connection.execute("BEGIN")
        do {
            try lockMigrations()
            let logged = try logsSchemaChanges()
            try connection.execute(PostgresMigrator.bootstrapSQL)
            let history = try readHistory()
            try plan.validate(history)
            let work = plan.pending(history, limit: nil)
            for (set, migration) in work { try apply(migration, of: set, logged: logged) }
            try checkDeferred(of: work.map { $0.1 })
            let written = try connection.query(
                "SELECT \(AppliedMigration.historyColumns) FROM \(PostgresMigrator.historyTable)"
            ).namedRows.map(AppliedMigration.init(historyRow:))
            try connection.execute("ROLLBACK")
            return work.compactMap { set, migration in
                written.first { $0.set == set.name && $0.version == migration.version }
            }
        } catch {
            connection.rollbackOrClose()
            throw error
        }
    }

    /// In the open transaction: the lock waits limited (``PostgresStoreConfiguration/migrationLockTimeout``), then
    /// the migration lock, held until the transaction ends.
    func lockMigrations() throws {
        if let timeout = configuration.migrationLockTimeout {
            let setting = ServerConnection.lockTimeoutSetting(timeout)
            try connection.execute(setting.sql, setting.values)
        } else if configuration.lockTimeout != nil {
            // No limit for migrations, whatever the sessions' `lock_timeout` (0: none).
            try connection.execute("SELECT set_config('lock_timeout', '0', true)")
        }
        try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresMigrator.lockKey))")
    }

    /// Runs now the checks PostgreSQL would run at COMMIT, which a rollback skips; a failure names the files.
    private func checkDeferred(of migrations: [Migration]) throws {
        do {
            try connection.execute("SET CONSTRAINTS ALL IMMEDIATE")
        } catch let error as StoreError where ![.unavailable, .busy].contains(error.code) {
            let files = migrations.map(\.id).joined(separator: ", ")
            throw StoreError(
                .migrationConflict, "\(files) failed the checks PostgreSQL makes at COMMIT: \(error.message); nothing was applied")
        }
    }

    /// In one transaction under the lock: re-reads and validates the history, then applies the first pending file.
    /// Returns false when nothing was pending (another process applied it meanwhile).
    private func applyNext(limit: (set: String, version: Int)?, logged: Bool) throws -> Bool {
        try connection.execute("BEGIN")
        do {
            try lockMigrations()
            try connection.execute(PostgresMigrator.bootstrapSQL)
            let history = try readHistory()
            try plan.validate(history)
            guard let (set, migration) = plan.pending(history, limit: limit).first else {
                try connection.execute("COMMIT")
                return false
            }
            try apply(migration, of: set, logged: logged)
            try connection.execute("COMMIT")
            // The commit stamp (0002) noted the logged commit for `_store_settle()` in this session: the connection
            // goes back to the pool, where a write must not take it for its own.
            try connection.execute("SELECT set_config('observable_store.committed', '', false)")
            configuration.logger.info("applied migration", metadata: ["set": "\(set.name)", "migration": "\(migration.id)"])
            return true
        } catch {
            connection.rollbackOrClose()
            throw error
        }
    }

    // MARK: - Reading and validating the history

    func readHistory() throws -> [MigrationPlan.HistoryRow] {
        guard try connection.query("SELECT to_regclass('\(PostgresMigrator.historyTable)') IS NOT NULL").scalar == .integer(1) else {
            return []
        }
        return try connection.query(
            "SELECT set_name, version, name, checksum, applied_at FROM \(PostgresMigrator.historyTable) ORDER BY set_name, version"
        ).namedRows.map { row in
            MigrationPlan.HistoryRow(
                set: row.value("set_name") ?? "", version: row.value("version", as: Int.self) ?? 0, name: row.value("name") ?? "",
                checksum: row.value("checksum") ?? "", appliedAt: row.value("applied_at", as: Date.self))
        }
    }

    // MARK: - Writing

    /// Runs `migration` and records it, in the open transaction (tagged `migration:SET/ID` when `logged`).
    private func apply(_ migration: Migration, of set: MigrationSet, logged: Bool) throws {
        let started = ContinuousClock.now
        if logged {
            let origin = "migration:\(set.name)/\(migration.id)"
            try connection.execute("SELECT set_config('observable_store.origin', $1, true)", [.text(origin)])
        }
        try run(migration, of: set)
        try record(migration, of: set, started: started, logged: logged)
    }

    private func run(_ migration: Migration, of set: MigrationSet) throws {
        guard migration.runsInTransaction else {
            throw StoreError(
                .migrationConflict,
                "\(migration.id).sql: \(Migration.noTransactionDirective) is not supported on PostgreSQL (every file runs in one transaction)")
        }
        do {
            try connection.script(migration.sql)
        } catch let error as StoreError where ![.unavailable, .busy].contains(error.code) {
            let setText = set.name == MigrationSet.storeSetName ? "" : " of set \(set.name)"
            throw StoreError(
                .migrationConflict,
                "\(migration.id)\(setText) failed: \(error.message); nothing from \(Migration.format(migration.version)) was applied")
        }
    }

    /// Records `migration` in the history and, when `logged`, its transaction as a schema-change commit (its origin,
    /// `migration:SET/ID`, was set before the file ran).
    private func record(_ migration: Migration, of set: MigrationSet, started: ContinuousClock.Instant, logged: Bool) throws {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        try connection.execute(
            "INSERT INTO \(PostgresMigrator.historyTable) (set_name, version, name, checksum, applied_at, duration_ms, applied_by) "
                + "VALUES ($1, $2, $3, $4, date_trunc('milliseconds', clock_timestamp()), $5, $6)",
            [
                .text(set.name), .integer(Int64(migration.version)), .text(migration.name), .text(migration.checksum),
                .integer(milliseconds), .text(configuration.appliedBy),
            ])
        if logged {
            try connection.execute("SELECT _store_open_commit()")
            try connection.execute("UPDATE _store_commits SET schema_changed = true WHERE txid = pg_current_xact_id()")
        }
    }
}
#endif
