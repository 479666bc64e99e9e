import Foundation
import Logging
import ObservableStoreCore
import StoreSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Notices commits made by other processes and hands them to the store's listeners.
///
/// A thread waits for the database directory to change (inotify on Linux: the writer's WAL appends
/// wake it at once) or for the poll interval to pass, then checks `PRAGMA data_version` on its own
/// read-only connection, which holds no open statement between checks. When the version moved:
/// - new log rows → the store's `CommitPublisher` publishes them, merged in sequence order with this
///   process's own commits;
/// - no new log row, and the bookkeeping counter did not move either → a foreign writer changed the
///   file: the store logs it as an external-change marker (``SQLiteStore/logForeignWrite(seenAt:)``), which
///   every listener receives as `.resync(.externalChange)`.
///
/// `@unchecked Sendable`: `connection` and the `last…` fields are used only on the feed thread;
/// `stopRequested` is guarded by `lock`, and the wake-up pipe is written from any thread.
final class ChangeFeed: @unchecked Sendable {
    private let connection: Connection
    private let publisher: CommitPublisher<LoggedCommit>
    private let activity: WriteActivity
    private let databasePath: String
    private let pollInterval: Duration
    private let logger: Logger
    private let lock = NSLock()
    private var stopRequested = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    private var wakePipe: [Int32] = [-1, -1]
    private var lastDataVersion: Int64 = -1
    private var checkCount = 0  // guarded by lock
    /// How many times the feed has checked the file (for tests).
    var checks: Int { lock.withLock { checkCount } }
    /// The shortest time between two checks while writes keep coming (adds at most this to latency in a burst).
    static let burstInterval: Duration = .milliseconds(1)
    /// While this process writes, and for this long after a write, the feed polls instead of watching the directory.
    static let ownWriteWindow: Duration = .milliseconds(5)
    /// The poll interval while this process writes: what it adds, at most, to another process's commit latency.
    static let mutedPollInterval: Duration = .milliseconds(20)
    private var lastCheck = ContinuousClock.now
    /// How long a change with no log row is given to turn out to be a library commit in progress.
    static let foreignWriteConfirmation: Duration = .milliseconds(100)
    private var lastPosition: LogPosition
    /// Called on the feed thread when the file changed while the log stood still at the position given: a
    /// foreign write. The store logs it (so that every process and durable listener sees it in order) and
    /// publishes it. Without it, this process's listeners get `.resync(.externalChange)` directly. Set before ``start()``.
    var onForeignWrite: (@Sendable (LogPosition) -> Void)?
    /// Called on the feed thread once this process has stopped writing, after each burst of its writes: the
    /// store asks its writer whether a foreign write came after its last commit. Set before ``start()``.
    var onOwnWritesSettled: (@Sendable () -> Void)?
    /// The end of the burst of own writes last verified (feed thread only).
    private var verifiedOwnWrites: ContinuousClock.Instant?

    init(
        databasePath: String, publisher: CommitPublisher<LoggedCommit>, activity: WriteActivity, pollInterval: Duration, busyTimeoutMilliseconds: Int32,
        logger: Logger
    ) throws {
        self.databasePath = databasePath
        self.publisher = publisher
        self.activity = activity
        self.pollInterval = pollInterval
        self.logger = logger
        connection = try StoreError.wrapping {
            try Connection(path: databasePath, mode: .readOnly, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        }
        (lastPosition, lastDataVersion) = try ChangeFeed.snapshot(on: connection)
    }

    /// The log position and `PRAGMA data_version` of one read transaction, so that they agree: read
    /// apart, a commit landing in between would look like a foreign write, or be missed.
    private static func snapshot(on connection: Connection) throws -> (LogPosition, Int64) {
        try StoreError.wrapping {
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            let position = try ChangeLog.position(on: connection)
            return (position, try connection.dataVersion())
        }
    }

    /// The log position when the feed started: publication starts after its last sequence.
    var startPosition: LogPosition { lastPosition }

    /// Starts the feed thread.
    func start() {
        // Close-on-exec: a program this process starts must not inherit the feed's wake pipe.
        if pipe(&wakePipe) == 0 {
            for descriptor in wakePipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        let thread = Thread { [self] in
            // Named from the thread itself (a thread otherwise keeps its creator's name), in Linux's 15 bytes.
            Thread.current.name = "store-feed"
            run()
            finished.signal()
        }
        thread.qualityOfService = .userInitiated
        self.thread = thread
        thread.start()
    }

    /// Stops the feed thread and waits for it; closes the feed's connection.
    func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { stopRequested = true }
            return !stopRequested && thread != nil
        }
        guard wasRunning else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe[1], &byte, 1)
        finished.wait()
        close(wakePipe[0])
        close(wakePipe[1])
        connection.close()
    }

    private var isStopping: Bool { lock.withLock { stopRequested } }

    private func run() {
        let watcher = DirectoryWatcher(directory: (databasePath as NSString).deletingLastPathComponent)
        defer { watcher?.close() }
        let idleTimeout = max(ChangeFeed.milliseconds(pollInterval), 1)
        let mutedTimeout = ChangeFeed.milliseconds(ChangeFeed.mutedPollInterval)
        while !isStopping {
            let muted = watcher?.isMuted ?? false
            var descriptors = [pollfd(fd: wakePipe[0], events: Int16(POLLIN), revents: 0)]
            if let watcher, !muted {
                descriptors.append(pollfd(fd: watcher.descriptor, events: Int16(POLLIN), revents: 0))
            }
            _ = poll(&descriptors, nfds_t(descriptors.count), muted ? mutedTimeout : idleTimeout)
            if isStopping { break }
            if let watcher {
                let ownWrites = activity.isWriting(orWroteWithin: ChangeFeed.ownWriteWindow)
                if muted, !ownWrites {
                    // This process stopped writing: watch again. The check below sees anything written meanwhile.
                    watcher.unmute()
                } else if !muted, descriptors[1].revents != 0 {
                    if ownWrites {
                        // This process is writing. Each of its WAL appends would queue an inotify event, which
                        // costs its write() call, and wake this thread for its own commits; poll instead.
                        watcher.mute()
                    } else {
                        // In a burst of other processes' commits, check at most once a millisecond instead of
                        // once a write; an isolated commit is checked at once.
                        let sinceLastCheck = ContinuousClock.now - lastCheck
                        if sinceLastCheck < ChangeFeed.burstInterval {
                            let wait = ChangeFeed.burstInterval - sinceLastCheck
                            usleep(UInt32(wait.components.attoseconds / 1_000_000_000_000))
                        }
                    }
                    watcher.drain()
                }
            }
            lastCheck = ContinuousClock.now
            check()
            verifyAfterOwnWrites()
        }
    }

    /// Once this process has stopped writing (for ``ownWriteWindow``), asks its writer whether a foreign
    /// write came after its last commit: a check of the feed that saw the writer's commit and a foreign
    /// write together took them for the writer's commit alone. While this process keeps writing, each
    /// write checks for itself.
    private func verifyAfterOwnWrites() {
        guard let onOwnWritesSettled, let lastWrite = activity.lastEnd, lastWrite != verifiedOwnWrites,
            !activity.isWriting(orWroteWithin: ChangeFeed.ownWriteWindow)
        else { return }
        verifiedOwnWrites = lastWrite
        onOwnWritesSettled()
    }

    /// `duration` in whole milliseconds, for `poll(2)`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// One check of the file: publish new commits, or report a foreign write.
    func check() {
        lock.withLock { checkCount += 1 }
        do {
            guard try StoreError.wrapping({ try connection.dataVersion() }) != lastDataVersion else { return }
            var (position, version) = try ChangeFeed.snapshot(on: connection)
            // No log row and no bookkeeping: a foreign write, or a library writer that has just reset the
            // WAL (after a checkpoint) and not committed yet. Give such a writer time to commit, looking
            // every millisecond so that its commit is not delayed.
            let deadline = ContinuousClock.now + ChangeFeed.foreignWriteConfirmation
            while position.last == lastPosition.last && position.bookkeeping == lastPosition.bookkeeping
                && ContinuousClock.now < deadline
            {
                usleep(1_000)
                (position, version) = try ChangeFeed.snapshot(on: connection)
            }
            lastDataVersion = version
            defer { lastPosition = position }
            if position.last > lastPosition.last {
                publisher.publishFromLog(ChangeLogReader(connection: connection), newest: position.last)
            } else if position.bookkeeping == lastPosition.bookkeeping {
                if let onForeignWrite { onForeignWrite(position) } else { publisher.publishExternalChange() }
            }
        } catch {
            logger.error("change feed check failed", metadata: ["error": "\(error)"])
        }
    }
}

/// An inotify watch on a directory: readable whenever a file in it is written, created or renamed.
/// Nil where inotify is not available (the feed then polls). Muting removes the watch, so that writes
/// queue no events; unmuting adds it again.
private final class DirectoryWatcher {
    let descriptor: Int32
    private let directory: String
    private var watch: Int32 = -1
    private(set) var isMuted = false

    init?(directory: String) {
        self.directory = directory.isEmpty ? "." : directory
        #if canImport(Glibc)
            descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            guard addWatch() else {
                Glibc.close(descriptor)
                return nil
            }
        #else
            return nil
        #endif
    }

    private func addWatch() -> Bool {
        #if canImport(Glibc)
            watch = inotify_add_watch(descriptor, directory, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO))
        #endif
        return watch >= 0
    }

    /// Stops watching until ``unmute()``.
    func mute() {
        #if canImport(Glibc)
            _ = inotify_rm_watch(descriptor, watch)
        #endif
        isMuted = true
    }

    /// Watches again (if that fails, the feed keeps polling at the muted interval).
    func unmute() {
        if addWatch() { isMuted = false }
    }

    /// Reads and discards the pending notifications.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }

    func close() {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #endif
    }
}
