import Dispatch
import StoreSQLite

/// What only the writer's queue touches: the writer connection, the change capture its preupdate
/// hook fills, and the change log writer.
final class Writer {
    let connection: Connection
    let capture = ChangeCapture()
    let changeLog: ChangeLog
    /// The dates the writes' records carried last, formatted.
    let timestamps = TimestampCache()
    /// This process's logged commits since the change log was last pruned.
    var commitsSincePruning = 0

    init(connection: Connection, changeLogLayout: ChangeLogLayout) {
        self.connection = connection
        self.changeLog = ChangeLog(layout: changeLogLayout)
    }

    /// Whether the library's change-log tables exist (a store migrated only part of the way has none).
    func hasChangeLog() throws -> Bool {
        try StoreError.wrapping {
            let statement = try connection.prepare(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('_store_commits', '_store_meta')")
            return try statement.step() && statement.int64(at: 0) == 2
        }
    }

    /// WAL size (frames) past which a write is followed by a checkpoint: SQLite's automatic threshold.
    static let checkpointThreshold = 1000

    /// Checkpoints when the WAL has grown past ``checkpointThreshold``. Called after each write, once its
    /// events are handed over: SQLite would otherwise checkpoint inside the COMMIT (the connection defers
    /// checkpoints, see `Connection.deferCheckpoints()`), delaying that commit's listeners by the checkpoint's
    /// fsyncs. A failure is left for the next write to retry, as SQLite does with its own.
    func checkpointIfDue() {
        guard connection.framesInWAL >= Writer.checkpointThreshold else { return }
        try? connection.checkpoint()
    }

    /// Starts capturing row changes into ``capture``.
    func installCapture() {
        let capture = self.capture
        connection.setPreupdateHook { change in capture.record(change) }
    }
}

/// The writer and the serial queue that is the only place it is used.
///
/// `@unchecked Sendable`: the wrapped ``Writer`` and its `Connection` are not thread-safe (the
/// connection is opened in SQLite's multi-thread mode). They are touched only by closures running
/// on `queue`, a serial queue, so two threads never use them at once. `sync` refuses to run from `queue` itself (a nested write would
/// deadlock) and after `close()`.
final class SerializedWriter: @unchecked Sendable {
    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<Bool>()
    private let writer: Writer
    private var isClosed = false  // only read and written on `queue`

    /// Told when work on the queue starts and ends, so that the change feed does not wake for each of this
    /// process's own file writes (the write's WAL appends, then the checkpoint's writes to the database).
    private let activity: ObservationCenter?

    init(_ writer: Writer, label: String, activity: ObservationCenter? = nil) {
        self.writer = writer
        self.activity = activity
        self.queue = DispatchQueue(label: label)
        queue.setSpecific(key: queueKey, value: true)
        queue.setSpecific(key: SerializedWriter.anyWriterKey, value: true)
    }

    private static let anyWriterKey = DispatchSpecificKey<Bool>()

    /// Whether the caller runs on some store's writer queue (inside a write). Code there must not wait
    /// for a listener's handler: the handler may be waiting for this writer.
    static var isOnAnyWriterQueue: Bool { DispatchQueue.getSpecific(key: anyWriterKey) == true }

    /// Whether the caller is running on this connection's queue (inside a write).
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == true }

    /// Runs `body` with the connection on the queue and waits for it.
    func sync<T>(_ body: (Writer) throws -> T) throws -> T {
        guard !isOnQueue else {
            throw StoreError(
                .transactionMisuse,
                "write called inside a write: use the Transaction you were given, or a savepoint")
        }
        return try queue.sync {
            guard !isClosed else { throw StoreError(.transactionMisuse, "the store is closed") }
            return try asOwnWrite { try body(writer) }
        }
    }

    /// Runs `body` with the connection on the queue without blocking the caller's thread.
    func async<T: Sendable>(_ body: @escaping @Sendable (Writer) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                guard !self.isClosed else {
                    return continuation.resume(throwing: StoreError(.transactionMisuse, "the store is closed"))
                }
                // The caller resumes before the checkpoint: it does not wait for it.
                self.asOwnWrite { continuation.resume(with: Result { try body(self.writer) }) }
            }
        }
    }

    /// Runs `work` (on the queue) as this process's write, then the checkpoint if one is due; the change
    /// feed is told when the write starts and when both have ended.
    private func asOwnWrite<T>(_ work: () throws -> T) rethrows -> T {
        activity?.ownWriteStarted()
        defer {
            writer.checkpointIfDue()
            activity?.ownWriteEnded()
        }
        return try work()
    }

    /// Closes the connection after the work already queued. Later calls throw.
    func close() {
        let work = {
            guard !self.isClosed else { return }
            self.isClosed = true
            self.writer.connection.close()
        }
        if isOnQueue { work() } else { queue.sync(execute: work) }
    }
}
