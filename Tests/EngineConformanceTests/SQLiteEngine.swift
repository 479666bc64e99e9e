import Foundation
import ObservableStore
import StoreTestSupport

/// The SQLite engine under the conformance suite: a `SQLiteStore` on the file `store.sqlite` (WAL) of a directory.
struct SQLiteEngine: ConformanceEngine {
    /// The store file's path.
    let path: String

    /// The engine on `store.sqlite` in `directory`.
    init(directory: URL) {
        path = directory.appendingPathComponent("store.sqlite").path
    }

    var kind: EngineKind { .sqlite }

    func open() throws -> ObservableStore.SQLiteStore { try ObservableStore.SQLiteStore(path: path) }

    func open(migrationSets: [MigrationSet], policy: MigrationPolicy) throws -> ObservableStore.SQLiteStore {
        var configuration = SQLiteStoreConfiguration()
        configuration.migrationSets = migrationSets
        configuration.migrationPolicy = policy
        return try ObservableStore.SQLiteStore(path: path, configuration: configuration)
    }

    func acknowledge(_ commit: DurableCommit, in transaction: ObservableStore.SQLiteTransaction) throws {
        try commit.acknowledge(in: transaction)
    }

    var createAllKindsTable: String {
        """
        CREATE TABLE all_kinds (
          id INTEGER PRIMARY KEY, int_value INTEGER NOT NULL, real_value REAL NOT NULL, text_value TEXT NOT NULL,
          blob_value BLOB NOT NULL, optional_text TEXT, date_value TEXT NOT NULL, flag INTEGER NOT NULL
        )
        """
    }

    func recordFutureMigration(in store: ObservableStore.SQLiteStore) throws {
        let future = try store.schemaVersion() + 1
        try store.write { tx in
            try tx.execute(
                "INSERT INTO _store_migrations VALUES ('store', ?, 'future', 'x', '2030-01-01T00:00:00.000Z', 1, 'future')",
                [future])
            try tx.execute("PRAGMA user_version = \(future)")
        }
    }

    func migrationHistoryFromOutside() throws -> String {
        let result = try runSQLiteShell(
            path, "SELECT set_name, version, name, checksum FROM _store_migrations ORDER BY 1, 2; PRAGMA user_version;")
        guard result.status == 0 else { throw StoreError(.internal, "sqlite3 failed: \(result.stdout)") }
        return result.stdout
    }
}
