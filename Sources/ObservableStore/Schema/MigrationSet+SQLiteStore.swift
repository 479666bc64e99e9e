import ObservableStoreCore
import StoreMigrations

extension MigrationSet {
    /// The library's own migrations (`Migrations/*.sql`, compiled in).
    public static let store: MigrationSet = {
        do {
            return try MigrationSet(
                name: storeSetName,
                migrations: BundledMigrations.all.map { try Migration(fileName: $0.id, sql: $0.sql) })
        } catch {
            fatalError("the bundled migrations are invalid: \(error)")  // caught by the test suite
        }
    }()
}
