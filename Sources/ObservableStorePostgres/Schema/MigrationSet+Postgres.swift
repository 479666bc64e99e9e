#if PostgreSQL
import ObservableStoreCore
import StorePostgresMigrations

extension MigrationSet {
    /// The PostgreSQL engine's own migrations (`Migrations/postgres/*.sql`, compiled in), named "store" in the history
    /// like the SQLite engine's.
    public static let postgresStore: MigrationSet = {
        do {
            return try MigrationSet(
                name: storeSetName,
                migrations: BundledPostgresMigrations.all.map { try Migration(fileName: $0.id, sql: $0.sql) })
        } catch {
            fatalError("the bundled PostgreSQL migrations are invalid: \(error)")  // caught by the test suite
        }
    }()
}
#endif
