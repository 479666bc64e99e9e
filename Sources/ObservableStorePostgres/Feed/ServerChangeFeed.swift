#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres

/// Reads the commits of every writer (this store's, other processes' and hosts', `psql`'s) from the change log and
/// hands them to the store's ``CommitPublisher``.
///
/// One thread, one dedicated connection (never a pooled one: `LISTEN` belongs to a session) listening on
/// `observable_store`. The thread reads the log after the last published sequence when a notification comes (a
/// stamper's `pg_notify`, one per numbered batch), every poll interval in any case (a notification is only a
/// doorbell), and after every reconnect. Each read first numbers the commits that committed without being
/// numbered, when the stamp lock is free (`_store_stamp_waiting()`, migration 0002): a foreign writer's commit that
/// found the lock taken is numbered by the next stamper, and this poll is the stamper of last resort. While the
/// head moves, and for ``quietPollsBeforeSlowing`` polls after, the feed polls every ``activePollInterval``, so
/// such a commit waits milliseconds, not a whole poll interval.
///
/// When the connection is lost (closed by the server, a failed read), it connects again after
/// 100 ms, doubling up to 2 s, listens again and catches up: the publisher remembers its last sequence, so
/// nothing is lost and nothing comes twice.
///
/// `@unchecked Sendable`: `connection` is used only on the feed thread; the flags and the counters are guarded by
/// `condition`.
final class ServerChangeFeed: @unchecked Sendable {
    /// The notification channel of the commit stamp (`_store_stamp`).
    static let channel = "observable_store"
    /// The first wait before connecting again.
    static let firstBackoff: Duration = .milliseconds(100)
    /// The longest wait before connecting again.
    static let longestBackoff: Duration = .seconds(2)
    /// The poll interval while commits are coming in.
    static let activePollInterval: Duration = .milliseconds(5)
    /// How many polls that find the head where it was before the feed polls at its slower interval again.
    static let quietPollsBeforeSlowing = 20

    private let url: PostgresURL
    private let publisher: CommitPublisher<ServerLogEntry>
    private let layouts: ServerTableLayouts
    private let pollInterval: Duration
    private let stampsWaitingCommits: Bool
    private let logger: Logger
    private let condition = NSCondition()
    private var wakeRequested = false  // guarded by condition
    private var stopRequested = false  // guarded by condition
    private var processID: Int64?  // guarded by condition
    private var connectCount = 0  // guarded by condition
    private var connection: ServerConnection?  // written on the feed thread only, under condition; read by stop()
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// A feed of `url`'s log into `publisher`; it does nothing before ``start()``. When `stampsWaitingCommits`, each
    /// read first numbers waiting commits.
    init(
        url: PostgresURL, publisher: CommitPublisher<ServerLogEntry>, layouts: ServerTableLayouts, pollInterval: Duration,
        stampsWaitingCommits: Bool, logger: Logger
    ) {
        self.url = url
        self.publisher = publisher
        self.layouts = layouts
        self.pollInterval = pollInterval
        self.stampsWaitingCommits = stampsWaitingCommits
        self.logger = logger
    }

    /// The server process of the feed's current connection (`pg_backend_pid()`), nil while disconnected (for tests).
    var serverProcessID: Int64? { condition.withLock { processID } }

    /// How many times the feed has connected (for tests: 1 until a reconnect).
    var connections: Int { condition.withLock { connectCount } }

    /// Starts the feed thread; it connects and reads the log at once.
    func start() {
        let thread = Thread { [self] in
            Thread.current.name = "store-pg-feed"
            run()
            finished.signal()
        }
        thread.qualityOfService = .userInitiated
        self.thread = thread
        thread.start()
    }

    /// Stops the feed thread, waits for it (at most ``stopTimeout``), and closes its connection. Closing the
    /// connection first ends a read the thread may be waiting for.
    func stop() {
        let (wasRunning, current) = condition.withLock { () -> (Bool, ServerConnection?) in
            defer {
                stopRequested = true
                condition.broadcast()
            }
            return (!stopRequested && thread != nil, connection)
        }
        guard wasRunning else { return }
        current?.close()
        if finished.wait(timeout: .now() + ServerChangeFeed.stopTimeout) == .timedOut {
            logger.error("the change feed thread did not stop in time; leaving it")
        }
    }

    /// How long ``stop()`` waits for the feed thread.
    static let stopTimeout: Double = 5

    /// Makes the feed read the log now (a notification, a lost connection).
    func wake() {
        condition.withLock {
            wakeRequested = true
            condition.broadcast()
        }
    }

    private var isStopping: Bool { condition.withLock { stopRequested } }

    private func run() {
        var backoff = ServerChangeFeed.firstBackoff
        var lastHead: Int64?
        var quietPolls = ServerChangeFeed.quietPollsBeforeSlowing
        while !isStopping {
            if connection?.isClosed ?? true {
                let lost = condition.withLock { () -> ServerConnection? in
                    defer {
                        processID = nil
                        connection = nil
                    }
                    return connection
                }
                lost?.close()
                do {
                    let fresh = try connect()
                    let stopping = condition.withLock { () -> Bool in
                        if !stopRequested { connection = fresh }
                        return stopRequested
                    }
                    if stopping { fresh.close() }
                    backoff = ServerChangeFeed.firstBackoff
                } catch {
                    logger.warning("change feed cannot connect; retrying", metadata: ["error": "\(error)", "in": "\(backoff)"])
                    sleep(for: backoff)
                    backoff = min(backoff * 2, ServerChangeFeed.longestBackoff)
                    continue
                }
            }
            if let connection, let head = read(on: connection) {
                quietPolls = head == lastHead ? quietPolls + 1 : 0
                lastHead = head
            }
            let active = stampsWaitingCommits && quietPolls < ServerChangeFeed.quietPollsBeforeSlowing
            sleep(for: active ? min(pollInterval, ServerChangeFeed.activePollInterval) : pollInterval)
        }
        condition.withLock { connection }?.close()
    }

    /// A new connection, listening.
    private func connect() throws -> ServerConnection {
        let connection = try ServerConnection.connect(url, logger: logger)
        do {
            // Notifications and the close arrive on the connection's event loop: they only wake this thread.
            connection.onClose { [weak self] in self?.wake() }
            try connection.listen(on: ServerChangeFeed.channel) { [weak self] _ in self?.wake() }
            let processID = try connection.query("SELECT pg_backend_pid()::int8").scalar
            condition.withLock {
                if case .integer(let id) = processID { self.processID = id }
                connectCount += 1
            }
            return connection
        } catch {
            connection.close()
            throw error
        }
    }

    /// Numbers waiting commits (when it may), then publishes what the log holds after the last published sequence;
    /// returns the head it read. A read that fails leaves the publisher where it was: the next read (after a
    /// reconnect, if the connection is gone) starts from there.
    private func read(on connection: ServerConnection) -> Int64? {
        do {
            let head = try stampsWaitingCommits ? ServerLogReader.stampWaiting(on: connection) : ServerLogReader.head(on: connection)
            publisher.publishFromLog(ServerLogReader(connection: connection, layouts: layouts), newest: head)
            return head
        } catch {
            logger.warning("change feed cannot read the log", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Waits for `duration`, or less when woken or stopped.
    private func sleep(for duration: Duration) {
        let deadline = Date().addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        condition.withLock {
            while !wakeRequested && !stopRequested {
                if !condition.wait(until: deadline) { break }
            }
            wakeRequested = false
        }
    }
}
#endif
