import ObservableStoreCore
/// Helpers for migration tests: bring a store file to a chosen version, seed it, then open it
/// normally to continue to the latest version.
///
/// For example:
///
/// ```swift
/// try StoreMigrator.migrate(path: path, upTo: 1)          // only 0001_create_nodes
/// // … insert rows the way version 1 expects …
/// let store = try SQLiteStore(path: path)                          // applies 0002… and keeps the rows
/// ```
public enum StoreMigrator {
    /// Creates or opens the store at `path` and applies the migrations of `set` up to `version`
    /// (sets listed before `set` fully, later ones not at all), then closes it.
    public static func migrate(
        path: String, upTo version: Int, set: String = MigrationSet.storeSetName,
        configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration()
    ) throws {
        var configuration = configuration
        configuration.migrationPolicy = .migrateUpTo(version: version, set: set)
        try SQLiteStore(path: path, configuration: configuration).close()
    }
}
