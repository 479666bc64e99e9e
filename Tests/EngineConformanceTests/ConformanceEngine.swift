import ObservableStoreCore

/// One engine under the conformance suite: where its store lives, how to open it, and the little that cannot be
/// said through ``RecordStore`` (SQL in the engine's dialect, and `DurableCommit.acknowledge(in:)`, which
/// each engine declares on its own transaction type).
protocol ConformanceEngine: Sendable {
    /// The engine's store.
    associatedtype Store: RecordStore

    /// Which engine this is (the conformance table's column).
    var kind: EngineKind { get }

    /// Opens the store at this engine's location (a file, a database), applying the bundled migrations; the same
    /// location every time, so closing and opening again resumes the same store.
    func open() throws -> Store

    /// Opens the store with the service's `migrationSets` (SQL both engines accept) and `policy`.
    func open(migrationSets: [MigrationSet], policy: MigrationPolicy) throws -> Store

    /// `commit.acknowledge(in: transaction)`, the engine's overload.
    func acknowledge(_ commit: DurableCommit, in transaction: Store.Transaction) throws

    /// `CREATE TABLE all_kinds (…)` in the engine's dialect: `id` an integer primary key the engine generates,
    /// `int_value`, `real_value`, `text_value`, `blob_value`, `optional_text` (nullable), `date_value`, `flag`.
    var createAllKindsTable: String { get }

    /// Records a migration of the library's own set newer than this code knows, with `store`'s own SQL, so that
    /// the next ``open()`` must refuse the store.
    func recordFutureMigration(in store: Store) throws

    /// The migration history as another program reads it (the `sqlite3` shell, `psql`), one row a line: to show
    /// that a refused open changed nothing.
    func migrationHistoryFromOutside() throws -> String
}
