import Logging
import ObservableStoreCore

/// How a ``SQLiteStore`` opens its file, applies migrations and talks to SQLite.
///
/// For example:
///
/// ```swift
/// var configuration = SQLiteStoreConfiguration()
/// configuration.synchronous = .full
/// configuration.migrationSets = [try MigrationSet(name: "billing", directory: migrationsURL)]
/// let store = try SQLiteStore(path: "app.sqlite", configuration: configuration)
/// ```
public struct SQLiteStoreConfiguration: Sendable {
    /// SQLite's `PRAGMA synchronous`: how hard a commit waits for the disk.
    public enum Synchronous: String, Sendable {
        /// In WAL mode a commit survives a process crash; a power loss may undo the last commits. The default.
        case normal = "NORMAL"
        /// Every commit is synced to disk before `write` returns: survives power loss, costs an fsync.
        case full = "FULL"
    }

    /// What opening a store does about migrations (the same on every engine).
    public typealias MigrationPolicy = ObservableStoreCore.MigrationPolicy

    /// `PRAGMA synchronous`; `.normal` by default.
    public var synchronous: Synchronous = .normal
    /// How long a connection waits for a lock before failing with ``/ObservableStoreCore/StoreError/Code/busy``. 5 s by default.
    public var busyTimeout: Duration = .seconds(5)
    /// The most reader connections kept open at once (reads do not wait for the writer; one more waits for a
    /// free reader). 4 by default; 0 reads on the writer connection.
    public var maximumReaderCount: Int = 4
    /// Create the file when it does not exist. True by default; storectl opens existing stores with false.
    public var createIfMissing = true
    /// Migration sets of the embedding service, applied after the library's own set, in this order.
    public var migrationSets: [MigrationSet] = []
    /// What opening does about migrations; ``/ObservableStoreCore/MigrationPolicy/migrate`` by default.
    public var migrationPolicy: MigrationPolicy = .migrate
    /// Copy the database to `<path>.pre-NNNN.bak` (SQLite's backup API) before applying migrations to
    /// a store that already holds applied migrations. True by default.
    public var backupBeforeMigrating = true
    /// How many pre-migration backups of each migration set to keep. After a migration run that took a
    /// backup succeeds, the older backups of this database are removed, newest kept by the version in their
    /// names (see ``MigrationBackup``). 3 by default: the last three upgrades can be undone, at the cost of
    /// three copies of the file. 0 removes each backup once its run has succeeded (a failed run keeps it);
    /// nil never removes any. A negative number makes opening throw ``/ObservableStoreCore/StoreError/Code/invalidInput``.
    public var keptMigrationBackups: Int? = 3
    /// How long to wait for another process that is migrating the same file. 30 s by default.
    public var migrationLockTimeout: Duration = .seconds(30)
    /// Who applies migrations, recorded in the history's `applied_by` (e.g. "MyApp 2.1").
    public var applicationName: String?
    /// Capture every committed row change, write it to the change log and deliver it to listeners.
    /// True by default. False makes bulk writes cheaper but the store then emits no events at all
    /// (listeners receive nothing, `storectl watch` sees nothing from this process).
    public var tracksChanges = true
    /// How much of the change log to keep; see ``/ObservableStoreCore/RetentionPolicy``.
    public var retention = RetentionPolicy()
    /// How often the store checks the file for other processes' commits when nothing woke it earlier.
    /// On Linux, writes to the database's directory wake it at once (inotify), so this is only a fallback;
    /// elsewhere it is the detection latency. 250 ms by default; each check is one `PRAGMA data_version`.
    public var changeFeedPollInterval: Duration = .milliseconds(250)
    /// How long the store's delivery thread keeps looking for the next event after delivering one,
    /// yielding the CPU on every turn, before it sleeps. A listener that is not immediate then gets a
    /// commit that follows within this window without a thread wake-up (about 25 µs on a 2-core VM).
    /// The cost is up to this much CPU time after each delivery. 200 µs by default; zero turns it off.
    /// The thread stops spinning for a while when it finds that another thread took its CPU for a time
    /// slice (two of its turns more than 1 ms apart), or that work handed to it waits over 20 µs on average
    /// before it takes it: spinning then only delays the work it waits for.
    public var deliverySpinWindow: Duration = .microseconds(200)
    /// How the change log stores a commit's changes (see `docs/OBSERVATION.md`); for measurements only.
    package var changeLogLayout: ChangeLogLayout = .payloadPerCommit
    /// The most bytes of captured changes in one piece of a logged commit (4 MiB by default): a larger
    /// transaction is captured, logged and delivered in pieces of about this size. For tests and measurements.
    package var changeLogPieceSize = ChangeCapture.defaultPieceByteLimit
    /// When set, the writer connection's `SQLITE_LIMIT_LENGTH` (the longest value it accepts): tests lower it
    /// to show that a transaction whose changes exceed it is still logged.
    package var writerLengthLimit: Int?
    /// Where the store logs (swift-log). Quiet by default.
    public var logger = Logger(label: "ObservableStore", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Told about every error a listener's handler throws, with the listener's name (nil by default).
    /// The error is also logged at warning level through ``logger``. Also told (and logged at error level)
    /// when a typed listener gets a row that does not decode (``/ObservableStoreCore/RecordEvent/decodingFailed(_:)``) or is
    /// refused a filter that leaves its record's table out; see ``/ObservableStoreCore/ListeningStore/listen(_:to:filter:options:handler:)``.
    ///
    /// A listener that throws loses only that event; a durable listener keeps the commit unacknowledged and
    /// retries it. Called on the thread that ran the handler, right after it threw: be quick, and do not
    /// wait for that listener's next event from here. Removing the listener from here is allowed.
    ///
    /// For example:
    ///
    /// ```swift
    /// configuration.listenerErrorHandler = { name, error in metrics.count("listener_failure", tags: ["listener": name]) }
    /// ```
    public var listenerErrorHandler: (@Sendable (_ listener: String, _ error: any Error) -> Void)?

    /// The default configuration.
    public init() {}

    var busyTimeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = busyTimeout.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    var appliedBy: String {
        let library = "ObservableStore \(SQLiteStore.libraryVersion)"
        guard let applicationName else { return library }
        return "\(applicationName) (store lib \(SQLiteStore.libraryVersion))"
    }
}
