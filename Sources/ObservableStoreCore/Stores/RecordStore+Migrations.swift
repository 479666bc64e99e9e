extension RecordStore {
    /// The migration history, ordered by set and version (empty before the first migration).
    public func appliedMigrations() throws -> [AppliedMigration] {
        try engineHandle.engine.readMigrationHistory()
    }

    /// The store's schema version: the last applied migration of the library's own set, 0 before the first.
    public func schemaVersion() throws -> Int {
        try engineHandle.engine.readSchemaVersion()
    }

    /// Where every migration of the library's set and the configured sets stands in this store. History rows of sets
    /// the code does not know are not listed.
    public func migrationStatus() throws -> MigrationStatus {
        MigrationStatus(
            sets: engineHandle.engine.migrationSets,
            history: try appliedMigrations().map { ($0.set, $0.version, $0.name, $0.checksum, $0.appliedAt) })
    }

    /// Rehearses applying the pending migrations (`storectl migrate plan`): the real SQL meets the real data, and the
    /// store is left as it was. Returns the history rows the rehearsal wrote (with each file's duration), in apply
    /// order; empty when nothing is pending. On SQLite it applies them to a temporary copy made with the backup API;
    /// on PostgreSQL in one transaction under the migration lock, rolled back after the checks PostgreSQL defers to
    /// COMMIT (what ROLLBACK does not undo, a `setval` or sequence values drawn, stays).
    ///
    /// Throws ``StoreError/Code/schemaTooNew`` or ``StoreError/Code/migrationConflict`` when the history is newer than
    /// the code or conflicts with it (checked before anything runs), and ``StoreError/Code/migrationConflict`` for a
    /// file that fails (naming it).
    public func rehearsePendingMigrations() throws -> [AppliedMigration] {
        try engineHandle.engine.rehearseMigrations()
    }

    /// Re-records the checksum of applied migration `version` of `set` as the known file's, after a person reviewed
    /// the edit (`storectl migrate repair --accept`). Returns the old and new checksums. Never marks an unapplied file
    /// applied.
    ///
    /// Throws ``StoreError/Code/notFound`` when no known set has that migration, or it is not applied.
    public func acceptMigrationChange(version: Int, set: String = MigrationSet.storeSetName) throws -> (old: String, new: String) {
        let migration = try engineHandle.engine.migrationSets.migration(version, of: set)
        return try engineHandle.engine.recordChecksum(of: migration, in: set)
    }
}
