#if PostgreSQL
import Logging
import ObservableStoreCore

/// How a ``PostgresStore`` connects, migrates and delivers: the PostgreSQL counterpart of the SQLite engine's
/// `SQLiteStoreConfiguration`, with the same names where the setting means the same.
public struct PostgresStoreConfiguration: Sendable {
    /// The most pooled connections open at once (for writes and reads; the change feed has one more of its own).
    public var maximumConnectionCount = 8
    /// How often the change feed reads the log when no notification came (NOTIFY is only a doorbell).
    public var changeFeedPollInterval: Duration = .milliseconds(250)
    /// How long a spin-waiting delivery thread spins before it sleeps (see the core's delivery).
    public var deliverySpinWindow: Duration = .microseconds(200)
    /// How much of the change log the store keeps (pruned every ``RetentionPolicy/pruneInterval`` own commits, and by
    /// ``PostgresStore/pruneChangeLog()``), as on SQLite.
    public var retention = RetentionPolicy()
    /// How long a durable listener whose name another session holds waits to take it over (retrying every 250 ms)
    /// before it gives up and reports ``/ObservableStoreCore/StoreError/Code/busy`` to ``listenerErrorHandler``; nil
    /// (the default): it stands by until the holder's session ends.
    public var durableListenerClaimTimeout: Duration?
    /// Whether commits are delivered to listeners (the change feed runs); off for tools that only read and write.
    public var tracksChanges = true
    /// Who applied migrations, recorded in the history (`applied_by`).
    public var applicationName: String?
    /// Migration sets of the embedding service (PostgreSQL SQL files), applied after the engine's own set
    /// (``MigrationSet/postgresStore``), in this order.
    public var migrationSets: [MigrationSet] = []
    /// What opening does about migrations; ``/ObservableStoreCore/MigrationPolicy/migrate`` by default.
    public var migrationPolicy: MigrationPolicy = .migrate
    /// How long migrating, rehearsing (`rehearsePendingMigrations()`) or repairing (`acceptMigrationChange`) waits for
    /// each lock — the migration lock another host holds, a table a file alters — before it throws
    /// ``/ObservableStoreCore/StoreError/Code/busy`` with nothing of that file applied (`SET LOCAL lock_timeout`).
    /// 30 s by default, as on SQLite; nil: as long as it takes.
    public var migrationLockTimeout: Duration? = .seconds(30)
    /// How long a statement waits for a lock another transaction holds (a row it writes, a table it alters) before it
    /// throws ``/ObservableStoreCore/StoreError/Code/busy``: the `lock_timeout` every connection of the store starts
    /// with. nil (the default): the server's setting, which by default waits as long as it takes. Migrations wait as
    /// ``migrationLockTimeout`` says instead. storectl sets it to `--busy-timeout`.
    public var lockTimeout: Duration?
    /// Where the store logs (nothing by default).
    public var logger = Logger(label: "ObservableStore.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Called when a listener's handler throws, with the listener's name.
    public var listenerErrorHandler: (@Sendable (_ listener: String, _ error: any Error) -> Void)?

    /// The defaults.
    public init() {}

    /// What the migration history records as `applied_by`.
    var appliedBy: String {
        let library = "ObservableStorePostgres \(PostgresStore.libraryVersion)"
        guard let applicationName else { return library }
        return "\(applicationName) (store lib \(PostgresStore.libraryVersion))"
    }
}
#endif
