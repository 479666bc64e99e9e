import Foundation
import Logging
import ObservableStoreCore
import StoreSQLite

/// A persistent record store on one SQLite file: one writer connection, a pool of readers (WAL),
/// and the migrations applied when it opens.
///
/// `SQLiteStore` is thread-safe. Writes are serialized (`BEGIN IMMEDIATE` on the writer connection);
/// reads run on reader connections and do not wait for writes (a read beyond
/// ``SQLiteStoreConfiguration/maximumReaderCount`` waits for a free reader; an in-memory store reads on its
/// writer). Every closure runs synchronously on the calling thread's behalf; the `async` variants suspend their
/// caller instead, queued for the writer's thread or the reader threads, and hold no thread while they wait.
///
/// For example:
///
/// ```swift
/// let store = try SQLiteStore(path: "app.sqlite")            // creates the file, applies migrations
/// let nodes = store.repository(NodeVO.self)
/// let node = try nodes.insert(NodeVO(name: "Start", x: 0, y: 0))
/// try store.write { tx in
///     try tx.update(NodeVO(id: node.id, name: "Begin", x: 5, y: 5))
///     try tx.insert(UserInfo(id: "me", name: "Ada"))
/// }
/// let count = try store.read { try $0.count(RecordQuery<NodeVO>()) }
/// ```
public final class SQLiteStore: Sendable {
    /// This library's version, recorded in the migration history.
    public static let libraryVersion = "0.1.0"
    /// `PRAGMA application_id` of every store file: 0x53544f52, "STOR".
    public static let applicationID: Int32 = 0x5354_4f52
    /// SQLite compile options the store cannot work without.
    static let requiredCompileOptions = ["ENABLE_PREUPDATE_HOOK"]

    /// The database file's path.
    public let path: String
    /// The configuration the store was opened with.
    public let configuration: SQLiteStoreConfiguration
    let writer: SerializedWriter
    let readers: ReaderPool
    /// The named listeners and streams.
    let registry: ListenerRegistry
    /// Hands each logged commit, this process's and others', to the listeners.
    let publisher: CommitPublisher<LoggedCommit>
    /// Notices other processes' commits; nil for in-memory stores and when changes are not tracked.
    let feed: ChangeFeed?
    /// What a write goes through on the writer, from BEGIN to its publication.
    let pipeline: CommitPipeline

    /// Opens (or creates) the store at `path` and applies migrations as
    /// ``SQLiteStoreConfiguration/migrationPolicy`` says.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/schemaTooNew`` for a database migrated by newer code and
    /// ``/ObservableStoreCore/StoreError/Code/migrationConflict`` when its history disagrees with the known migrations;
    /// in both cases nothing is changed. Pass ":memory:" for a private in-memory store.
    public init(path: String, configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration()) throws {
        try SQLiteStore.checkCompileOptions(SQLiteStore.requiredCompileOptions)
        let inMemory = path == ":memory:"
        if !inMemory, !configuration.createIfMissing, !FileManager.default.fileExists(atPath: path) {
            throw StoreError(.notFound, "no store at \(path)")
        }
        var isDirectory: ObjCBool = false
        if !inMemory, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError(.cannotOpen, "\(path) is a directory, not a store file")
        }
        if !inMemory, !configuration.createIfMissing, SQLiteStore.fileSize(path) == 0 {
            throw StoreError(.notAStore, "\(path) is an empty file, not a store")
        }
        let timeout = configuration.busyTimeoutMilliseconds
        let connection = try StoreError.wrapping {
            try Connection(path: path, mode: .readWrite(create: configuration.createIfMissing), busyTimeoutMilliseconds: timeout)
        }
        do {
            try SQLiteStore.configureWriter(connection, configuration, inMemory: inMemory)
            let migrator = Migrator(
                connection: connection, path: inMemory ? nil : path,
                sets: [MigrationSet.store] + configuration.migrationSets, configuration: configuration)
            try migrator.open(policy: configuration.migrationPolicy)
            // From here on, checkpoints run after a write has published its events, not inside its COMMIT
            // (see Writer.checkpointIfDue). Migrations ran with SQLite's automatic checkpoint.
            if !inMemory { connection.deferCheckpoints() }
        } catch let error as StoreError where [.cannotOpen, .readOnly].contains(error.code) && !inMemory {
            connection.close()
            let parent = (path as NSString).deletingLastPathComponent
            let directory = parent.isEmpty ? "." : parent
            guard SQLiteStore.canCreateFiles(in: directory) else {
                throw StoreError(
                    .readOnly,
                    "directory \(directory) is not writable: a store needs to create its -wal and -shm files next to "
                        + (path as NSString).lastPathComponent, sqliteCode: error.sqliteCode)
            }
            throw error
        } catch {
            connection.close()
            throw error
        }
        self.path = path
        self.configuration = configuration
        if let limit = configuration.writerLengthLimit { connection.lengthLimit = limit }
        let writer = Writer(
            connection: connection, changeLogLayout: configuration.changeLogLayout, pieceByteLimit: configuration.changeLogPieceSize)
        if !inMemory { writer.capture.spillDirectory = URL(fileURLWithPath: path).deletingLastPathComponent() }
        if configuration.tracksChanges { writer.installCapture() }
        // A thread inside a write must not wait for a handler: an immediate handler may be waiting for that write.
        let context = DeliveryContext(spinWindow: configuration.deliverySpinWindow) { !SerializedWriter.isInsideAnyWrite }
        let registry = ListenerRegistry(
            context: context, logger: configuration.logger, errorHandler: configuration.listenerErrorHandler)
        let publisher = CommitPublisher<LoggedCommit>(registry: registry, logger: configuration.logger)
        let activity = WriteActivity()
        self.registry = registry
        self.publisher = publisher
        self.writer = SerializedWriter(writer, label: "ObservableStore.writer", activity: inMemory ? nil : activity)
        if configuration.tracksChanges, !inMemory, try writer.hasChangeLog() {
            let feed = try ChangeFeed(
                databasePath: path, publisher: publisher, activity: activity, pollInterval: configuration.changeFeedPollInterval,
                busyTimeoutMilliseconds: timeout, logger: configuration.logger)
            publisher.startPublishing(after: feed.startPosition.last)
            self.feed = feed
        } else {
            self.feed = nil
        }
        self.pipeline = CommitPipeline(
            publisher: publisher, retention: configuration.retention, logger: configuration.logger,
            watchesForeignWrites: feed != nil)
        self.readers = ReaderPool(maximum: inMemory ? 0 : configuration.maximumReaderCount) {
            try StoreError.wrapping {
                try Connection(path: path, mode: .readOnly, busyTimeoutMilliseconds: timeout)
            }
        }
        if let feed {
            try writer.foreignWrites.refresh(on: connection)
            // Off the feed's thread: the check waits for the writer's turn.
            feed.onForeignWrite = { [weak self] position in
                DispatchQueue.global().async { [weak self] in self?.logForeignWrite(seenAt: position) }
            }
            feed.onOwnWritesSettled = { [weak self] in
                DispatchQueue.global().async { [weak self] in self?.logForeignWrite(seenAt: nil) }
            }
            feed.start()
        }
        configuration.logger.debug("opened store", metadata: ["path": "\(path)"])
    }

    deinit {
        close()
    }

    /// Logs and publishes a foreign write the change feed noticed, taking the writer's turn
    /// (``CommitPipeline/logForeignWrite(seenAt:through:)``).
    func logForeignWrite(seenAt position: LogPosition?) {
        pipeline.logForeignWrite(seenAt: position, through: writer)
    }

    /// Closes every connection and ends every change sequence. Later calls throw
    /// ``/ObservableStoreCore/StoreError/Code/transactionMisuse``, and so do reads waiting for a reader connection, at once.
    /// A read already running keeps its connection until it ends.
    public func close() {
        feed?.stop()
        registry.close()
        // Readers first: the last connection to close checkpoints the WAL into the file, and a
        // read-only connection cannot.
        readers.close()
        writer.close()
    }

    // MARK: - Transactions

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`) and commits; if `body` throws,
    /// everything it did is rolled back and the error is rethrown.
    ///
    /// After COMMIT succeeds, the commit gets the next store-wide sequence number and its row changes
    /// reach the listeners (immediate ones before this returns, the others on their own threads).
    /// `origin` tags the commit (e.g. the view or service that wrote), so listeners can filter on it.
    ///
    /// Writes are serialized: a call waits for the write in progress, and for the writes already waiting
    /// (they go in turn). Calling `write` from inside a `write` closure throws
    /// ``/ObservableStoreCore/StoreError/Code/transactionMisuse``: use the `SQLiteTransaction` (or a savepoint) instead. Waiting longer
    /// than the busy timeout for another process's write throws ``/ObservableStoreCore/StoreError/Code/busy``.
    @discardableResult
    public func write<T>(origin: String? = nil, _ body: (SQLiteTransaction) throws -> T) throws -> T {
        guard !registry.context.isPublishingOnCurrentThread else {
            throw StoreError(.transactionMisuse, "an immediate listener cannot write: it runs inside another write's publication")
        }
        return try writer.sync { writer in try pipeline.run(on: writer, origin: origin, body).value }
    }

    /// Like ``write(origin:_:)-662mu``, and also returns the sequence number of the commit the write made, to
    /// match it with the event listeners receive for it (``/ObservableStoreCore/Commit/sequence``). Reading
    /// ``lastSequence()`` afterwards would race with other writers.
    ///
    /// The sequence is nil when the write changed no row and no schema (nothing was committed to the
    /// change log, and listeners receive nothing), and when the store does not track changes.
    ///
    /// ```swift
    /// let written = try store.writeReturningCommit(origin: "canvas") { tx in try tx.insert(node) }
    /// pendingEchoes.insert(written.sequence)   // ignore this commit when its event comes back
    /// ```
    public func writeReturningCommit<T>(origin: String? = nil, _ body: (SQLiteTransaction) throws -> T) throws -> CommittedWrite<T> {
        guard !registry.context.isPublishingOnCurrentThread else {
            throw StoreError(.transactionMisuse, "an immediate listener cannot write: it runs inside another write's publication")
        }
        return try writer.sync { writer in try pipeline.run(on: writer, origin: origin, body) }
    }

    /// Like ``writeReturningCommit(origin:_:)``, with the caller suspended instead of blocking a thread: queued,
    /// cancelled and closed as the `async` `write(origin:_:)` is.
    public func writeReturningCommit<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (SQLiteTransaction) throws -> T
    ) async throws -> CommittedWrite<T> {
        try await writer.async { writer in try self.pipeline.run(on: writer, origin: origin, body) }
    }

    /// Like ``write(origin:_:)-662mu``, with the caller suspended instead of blocking a thread.
    ///
    /// The write is queued behind the writes already waiting and runs on the writer's serial queue (one thread
    /// at a time, however many callers wait); its caller is resumed after COMMIT and the publication to immediate
    /// listeners, before the checkpoint that may follow. Waiting neither blocks Swift's cooperative pool nor
    /// holds a thread per caller.
    ///
    /// Cancelling the task while the write waits for its turn ends it at once with `CancellationError`; `body`
    /// never runs and nothing is written. Once its turn came, the write runs to the end (committed or rolled back
    /// as `body` decides) whatever the cancellation. Closing the store fails the writes still waiting with
    /// ``/ObservableStoreCore/StoreError/Code/transactionMisuse`` ("the store is closed"); the write in progress
    /// ends first.
    ///
    /// ```swift
    /// let node = try await store.write { tx in try tx.insert(NodeVO(name: "Start", x: 0, y: 0)) }
    /// ```
    @discardableResult
    public func write<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (SQLiteTransaction) throws -> T
    ) async throws -> T {
        try await writer.async { writer in try self.pipeline.run(on: writer, origin: origin, body).value }
    }

    /// Runs `body` in a read transaction: every query in it sees the same snapshot, and writes are refused.
    @discardableResult
    public func read<T>(_ body: (SQLiteTransaction) throws -> T) throws -> T {
        guard readers.maximum > 0 else {
            return try writer.read { writer in try SQLiteStore.runTransaction(on: writer.connection, kind: .read, body) }
        }
        return try readers.withReader { connection in try SQLiteStore.runTransaction(on: connection, kind: .read, body) }
    }

    /// Runs `body`, which must run exactly one statement, on a reader connection without BEGIN and
    /// COMMIT: a single statement is its own consistent snapshot, and this saves two round trips.
    package func readOneStatement<T>(_ body: (SQLiteTransaction) throws -> T) throws -> T {
        guard readers.maximum > 0 else { return try read(body) }
        return try readers.withReader { connection in
            let transaction = SQLiteTransaction(connection: connection, kind: .read, capture: nil)
            defer { transaction.end() }
            return try body(transaction)
        }
    }

    /// The record of `type` with primary key `key`, or nil: ``/ObservableStoreCore/Repository/fetch(_:)``.
    ///
    /// As ``readOneStatement(_:)`` without its closure and its `SQLiteTransaction`: a closure returning `R?` makes Swift
    /// look that type up on every call, and the object is an allocation. A fetch by key takes a few microseconds in
    /// all, so each of these counts.
    package func fetchRecord<R: Record>(_ type: R.Type, key: R.Key) throws -> R? {
        guard readers.maximum > 0 else { return try read { try $0.fetch(type, key: key) } }
        let lease = try readers.lend()
        defer { readers.giveBack(lease) }
        return try SQLiteTransaction.fetch(type, key: key, on: lease.connection)
    }

    /// Like ``read(_:)``, with the caller suspended instead of blocking a thread.
    ///
    /// The read is queued, and `body` runs on one of the store's reader threads: at most
    /// ``SQLiteStoreConfiguration/maximumReaderCount`` of them, one per reader connection, take the queued reads in
    /// order and resume each caller when its read ends. No thread waits on behalf of a caller, however many
    /// callers wait, so thousands of concurrent reads neither block Swift's cooperative pool nor add threads.
    /// Synchronous reads share the same connections; when both kinds wait, a connection given back goes to them
    /// in turn. An in-memory store reads on its writer's queue instead, in turn with the writes.
    ///
    /// Cancelling the task while the read waits in the queue ends it at once with `CancellationError`; `body` never
    /// runs. Once `body` started, the read runs to the end and returns its value (or error) whatever the
    /// cancellation. Closing the store fails the reads still queued with
    /// ``/ObservableStoreCore/StoreError/Code/transactionMisuse`` ("the store is closed"); a read already running
    /// ends normally.
    ///
    /// ```swift
    /// let node = try await store.read { tx in try tx.fetch(NodeVO.self, key: id) }
    /// ```
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteTransaction) throws -> T) async throws -> T {
        guard readers.maximum > 0 else {
            return try await writer.async(countsAsWrite: false) { writer in
                try SQLiteStore.runTransaction(on: writer.connection, kind: .read, body)
            }
        }
        return try await readers.read { connection in try SQLiteStore.runTransaction(on: connection, kind: .read, body) }
    }

    static func runTransaction<T>(on connection: Connection, kind: SQLiteTransaction.Kind, _ body: (SQLiteTransaction) throws -> T) throws -> T {
        let transaction = SQLiteTransaction(connection: connection, kind: kind, capture: nil)
        defer { transaction.end() }
        if kind == .read, connection.isInTransaction {
            return try body(transaction)  // a read inside a read on the same thread joins the outer one
        }
        // A read on the writer connection (in-memory stores) is made read-only with query_only.
        let readOnWriter = kind == .read && !connection.isReadOnly
        if readOnWriter { try StoreError.wrapping { try connection.execute("PRAGMA query_only = ON") } }
        defer { if readOnWriter { try? connection.execute("PRAGMA query_only = OFF") } }
        return try connection.inTransaction(kind == .write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED") { try body(transaction) }
    }

    // MARK: - Opening

    static func checkCompileOptions(_ options: [String]) throws {
        for option in options where !Connection.compileOptionUsed(option) {
            throw StoreError(
                .unsupportedSQLite,
                "the linked SQLite \(Connection.libraryVersion) was built without \(option), which change capture "
                    + "needs; use a libsqlite3 built with SQLITE_\(option) (Debian's and Ubuntu's are)")
        }
    }

    /// The size of the file at `path`, nil when it cannot be read.
    private static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    /// True if a file can really be created in `directory` (`access(2)` says yes to root even when it cannot).
    private static func canCreateFiles(in directory: String) -> Bool {
        let probe = directory + "/.observable-store-probe-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: probe, contents: nil) else { return false }
        try? FileManager.default.removeItem(atPath: probe)
        return true
    }

    private static func configureWriter(_ connection: Connection, _ configuration: SQLiteStoreConfiguration, inMemory: Bool) throws {
        try StoreError.wrapping {
            if !inMemory {
                let statement = try connection.prepare("PRAGMA journal_mode = WAL")
                // Two processes creating the same file can both hold a shared lock while asking for the
                // exclusive one the switch needs: SQLite then fails one at once, without waiting. Retry.
                let deadline = ContinuousClock.now + configuration.busyTimeout
                var mode = ""
                while true {
                    do {
                        mode = try statement.step() ? statement.text(at: 0) : ""
                        statement.reset()
                        break
                    } catch let error as SQLiteError where error.primaryCode == ResultCode.SQLITE_BUSY && ContinuousClock.now < deadline {
                        usleep(10_000)
                    }
                }
                guard mode.lowercased() == "wal" else {
                    throw StoreError(.cannotOpen, "\(connection.path): could not switch to WAL (journal_mode is \(mode))")
                }
            }
            try connection.execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
            try connection.execute("PRAGMA foreign_keys = ON")
        }
    }
}
