#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres
import Synchronization

/// Reads the commits of every writer (this store's, other processes' and hosts', `psql`'s) from the change log and
/// hands them to the store's ``CommitPublisher``.
///
/// One task, on a thread of its own (``ThreadTaskExecutor``: publication calls listeners, which may block, so it holds
/// no thread of a shared pool), and one dedicated connection (never a pooled one: `LISTEN` belongs to a session) listening on `observable_store`. The task reads
/// the log after the last published sequence when a notification rings its ``Doorbell`` (a stamper's `pg_notify`,
/// one per numbered batch), every poll interval in any case (a notification is only a doorbell), and after every
/// reconnect; every statement is awaited, and the entries are read before they are published, so publication waits
/// for no server. Each read first numbers the commits that committed without being numbered, when the stamp lock is
/// free (`_store_stamp_waiting()`, migration 0002): a foreign writer's commit that found the lock taken is numbered
/// by the next stamper, and this poll is the stamper of last resort. While the head moves, and for
/// ``quietPollsBeforeSlowing`` polls after, the feed polls every ``activePollInterval``, so such a commit waits
/// milliseconds, not a whole poll interval.
///
/// When the connection is lost (closed by the server, a failed read), it connects again after
/// 100 ms, doubling up to 2 s, listens again and catches up: the publisher remembers its last sequence, so
/// nothing is lost and nothing comes twice.
final class PostgresChangeFeed: Sendable {
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
    /// The most commits one read publishes (the next read goes on at once).
    static let pageSize = 512

    private let url: PostgresURL
    private let publisher: CommitPublisher<PostgresLogEntry>
    private let layouts: PostgresTableLayouts
    private let pollInterval: Duration
    private let stampsWaitingCommits: Bool
    private let logger: Logger
    private let doorbell = Doorbell()
    /// Signalled when the task ends.
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var task: Task<Void, Never>?
        var isStopped = false
        var connection: ServerConnection?
        var processID: Int64?
        var connectCount = 0
    }

    private let state = Mutex(State())

    /// A feed of `url`'s log into `publisher`; it does nothing before ``start()``. When `stampsWaitingCommits`, each
    /// read first numbers waiting commits.
    init(
        url: PostgresURL, publisher: CommitPublisher<PostgresLogEntry>, layouts: PostgresTableLayouts, pollInterval: Duration,
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
    var serverProcessID: Int64? { state.withLock { $0.processID } }

    /// How many times the feed has connected (for tests: 1 until a reconnect).
    var connections: Int { state.withLock { $0.connectCount } }

    /// Starts the feed's task; it connects and reads the log at once.
    func start() {
        state.withLock { state in
            guard state.task == nil, !state.isStopped else { return }
            let executor = ThreadTaskExecutor(name: "store-pg-feed")
            state.task = Task(executorPreference: executor) { [self] in
                await run()
                executor.finish()
                finished.signal()
            }
        }
    }

    /// Stops the feed: cancels its task, closes its connection (which ends a read it may be waiting for) and waits
    /// for the task to end (at most ``stopTimeout``: its jobs run on dispatch threads, so a caller on any thread may
    /// wait), after which nothing more is published.
    func stop() {
        let (task, connection) = state.withLock { state -> (Task<Void, Never>?, ServerConnection?) in
            state.isStopped = true
            defer { (state.connection, state.task) = (nil, nil) }
            return (state.task, state.connection)
        }
        guard let task else { return }
        task.cancel()
        doorbell.ring()
        connection?.close()
        if finished.wait(timeout: .now() + PostgresChangeFeed.stopTimeout) == .timedOut {
            logger.error("the change feed did not stop in time; leaving it")
        }
    }

    /// How long ``stop()`` waits for the feed's task.
    static let stopTimeout: Double = 5

    /// Makes the feed read the log now (a notification, a lost connection).
    func wake() {
        doorbell.ring()
    }

    private var isStopping: Bool { state.withLock { $0.isStopped } || Task.isCancelled }

    private func run() async {
        var backoff = PostgresChangeFeed.firstBackoff
        var lastHead: Int64?
        var quietPolls = PostgresChangeFeed.quietPollsBeforeSlowing
        var connection: ServerConnection?
        while !isStopping {
            if connection?.isClosed ?? true {
                connection?.closeSoon()
                state.withLock { $0.processID = nil }
                do {
                    connection = try await connect()
                    backoff = PostgresChangeFeed.firstBackoff
                } catch {
                    connection = nil
                    if isStopping { break }
                    logger.warning("change feed cannot connect; retrying", metadata: ["error": "\(error)", "in": "\(backoff)"])
                    await doorbell.wait(upTo: backoff)
                    backoff = min(backoff * 2, PostgresChangeFeed.longestBackoff)
                    continue
                }
            }
            guard let current = connection else { continue }
            if let (head, complete) = await read(on: current) {
                quietPolls = head == lastHead ? quietPolls + 1 : 0
                lastHead = head
                if !complete { continue }  // a full page: read on at once
            }
            let active = stampsWaitingCommits && quietPolls < PostgresChangeFeed.quietPollsBeforeSlowing
            await doorbell.wait(upTo: active ? min(pollInterval, PostgresChangeFeed.activePollInterval) : pollInterval)
        }
        connection?.close()
    }

    /// A new connection, listening; kept in ``state`` for ``stop()`` (closed at once when the feed is stopping).
    private func connect() async throws -> ServerConnection {
        let connection = try await ServerConnection.connect(url, logger: logger)
        do {
            // Notifications and the close arrive on the connection's event loop: they only ring the doorbell.
            connection.onClose { [doorbell] in doorbell.ring() }
            try await connection.listen(on: PostgresChangeFeed.channel) { [doorbell] _ in doorbell.ring() }
            let processID = try await connection.query("SELECT pg_backend_pid()::int8").scalar
            let stopped = state.withLock { state -> Bool in
                guard !state.isStopped else { return true }
                if case .integer(let id) = processID { state.processID = id }
                state.connection = connection
                state.connectCount += 1
                return false
            }
            if stopped { throw CancellationError() }
            return connection
        } catch {
            connection.close()
            throw error
        }
    }

    /// Numbers waiting commits (when it may), reads what the log holds after the last published sequence (one page),
    /// then publishes it; returns the head it read, and whether the page held everything up to it. A read that fails
    /// leaves the publisher where it was: the next read (after a reconnect, if the connection is gone) starts there.
    private func read(on connection: ServerConnection) async -> (head: Int64, complete: Bool)? {
        do {
            let head = try await stampsWaitingCommits
                ? PostgresLogReader.stampWaiting(on: connection) : PostgresLogReader.head(on: connection)
            let after = publisher.lastPublishedSequence
            var entries: [PostgresLogEntry] = []
            if head > after, publisher.hasListeners {
                let reader = PostgresLogReader(connection: connection, layouts: layouts)
                entries = try await reader.entries(after: after, through: head, limit: PostgresChangeFeed.pageSize)
            }
            guard !isStopping else { return nil }
            let page = PrefetchedLog(entries: entries, last: entries.count == PostgresChangeFeed.pageSize ? entries.last?.sequence ?? head : head)
            publisher.publishFromLog(page, newest: page.last)
            return (head, entries.count < PostgresChangeFeed.pageSize)
        } catch {
            if !isStopping { logger.warning("change feed cannot read the log", metadata: ["error": "\(error)"]) }
            return nil
        }
    }
}
#endif
