/// What opening a store does about migrations: the same cases on every engine (the SQLite engine's
/// `SQLiteStoreConfiguration.migrationPolicy`, the PostgreSQL engine's `PostgresStoreConfiguration.migrationPolicy`).
public enum MigrationPolicy: Sendable, Equatable {
    /// Validate the history, then apply every pending migration of every set. The default.
    case migrate
    /// Validate, then apply pending migrations of `set` up to `version` (sets before it in full, later ones not at all).
    /// Meant for migration tests: seed data at one version, then open again to continue.
    case migrateUpTo(version: Int, set: String)
    /// Validate the history (newer schema, conflicts) but apply nothing.
    case validateOnly
    /// Open only a store that is exactly at the latest known version of every set; apply nothing.
    /// Otherwise opening throws what ``MigrationStatus/requireCurrent()`` throws:
    /// ``StoreError/Code/schemaTooNew``, ``StoreError/Code/migrationConflict``, or
    /// ``StoreError/Code/migrationNeeded`` naming the pending files (a new, empty file has them all pending).
    /// For tools that must not change a store's schema, such as storectl's data commands.
    case requireCurrent
    /// Neither validate nor apply: for tools that inspect any store, whatever its schema.
    case none
}
