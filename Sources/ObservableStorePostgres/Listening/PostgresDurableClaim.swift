#if PostgreSQL
import Dispatch
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres

/// One durable listener of a ``PostgresStore``, made the only consumer of its name across processes and hosts.
///
/// Before it delivers anything it takes the session advisory lock `hashtext('store.listener:' || name)` on a
/// dedicated connection, held for the listener's life. While another session holds it, the claim retries every
/// 250 ms (up to ``PostgresStoreConfiguration/durableListenerClaimTimeout``); PostgreSQL frees the lock when the
/// holder's session ends (closed, killed, its host gone), and the next claimant takes over from the stored cursor.
/// When this claim's own lock connection is lost, delivery stops at once and the claim starts again: a handler
/// still running meanwhile is why acknowledgement inside a transaction is a compare-and-set.
///
/// `@unchecked Sendable`: `lockConnection` and `firstAttempt` are used only on `queue`; `durable` and `isStopped`
/// are guarded by `lock`.
final class PostgresDurableClaim: DurableConsumer, @unchecked Sendable {
    /// The wait between two attempts to take the lock.
    static let retryInterval: Duration = .milliseconds(250)

    let name: String
    private let filter: ChangeFilter
    private let handler: @Sendable (DurableEvent) throws -> Void
    private weak var store: PostgresStore?
    private let timeout: Duration?
    private let queue: DispatchQueue
    private let lock = NSLock()
    private var durable: DurableListener<PostgresStore>?  // guarded by lock
    private var isStopped = false  // guarded by lock
    private var lockConnection: ServerConnection?  // queue only
    private var firstAttempt: ContinuousClock.Instant?  // queue only

    /// A claim of durable listener `name` of `store`; it does nothing before ``begin()``.
    init(
        name: String, filter: ChangeFilter, store: PostgresStore, handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) {
        self.name = name
        self.filter = filter
        self.handler = handler
        self.store = store
        self.timeout = store.configuration.durableListenerClaimTimeout
        self.queue = DispatchQueue(label: "ObservableStore.durable-claim.\(name)")
    }

    /// Starts claiming the name.
    package func begin() {
        queue.async { self.attempt() }
    }

    /// Whether this claim holds the name and delivers.
    var isDelivering: Bool { lock.withLock { durable != nil } }

    /// Makes the listener read the log (a commit was published), if it holds the name.
    package func wake() {
        lock.withLock { durable }?.wake()
    }

    /// Stops delivery and claiming, and releases the name (closes the lock's session).
    package func stop() {
        let current = lock.withLock { () -> DurableListener<PostgresStore>? in
            isStopped = true
            defer { durable = nil }
            return durable
        }
        current?.stop()
        queue.sync {
            lockConnection?.close()
            lockConnection = nil
        }
    }

    private var stopped: Bool { lock.withLock { isStopped } }

    /// One attempt to take the name (on `queue`); schedules the next one when it is held elsewhere.
    private func attempt() {
        guard !stopped, let store else { return }
        let now = ContinuousClock.now
        if firstAttempt == nil { firstAttempt = now }
        do {
            if lockConnection?.isClosed ?? true {
                lockConnection = try ServerConnection.connect(store.serverURL, logger: store.configuration.logger)
            }
            guard let connection = lockConnection else { return }
            let taken = try connection.query(
                "SELECT pg_try_advisory_lock(hashtext('store.listener:' || $1))", [.text(name)]).scalar == .integer(1)
            if taken {
                try startDelivering(store: store, holding: connection)
                return
            }
        } catch {
            store.configuration.logger.warning(
                "durable listener cannot claim its name; retrying", metadata: ["listener": "\(name)", "error": "\(error)"])
        }
        if let timeout, let firstAttempt, now - firstAttempt >= timeout {
            let error = StoreError(
                .busy, "durable listener \(name): another session held the name for \(timeout); this listener gave up")
            store.registry.report(error, listener: name)
            lockConnection?.close()
            lockConnection = nil
            return
        }
        queue.asyncAfter(deadline: .now() + 0.25) { [weak self] in self?.attempt() }
    }

    /// Holding the lock: reads the cursor as the previous holder left it and starts delivering from it.
    private func startDelivering(store: PostgresStore, holding connection: ServerConnection) throws {
        let cursor = try store.pool.withConnection { try PostgresDurableCursor.claim(name, initial: 0, on: $0) }
        let durable = DurableListener(
            name: name, filter: filter, cursor: cursor, engine: store, context: store.registry.context,
            logger: store.configuration.logger, errorHandler: store.configuration.listenerErrorHandler, handler: handler)
        let started = lock.withLock { () -> Bool in
            guard !isStopped else { return false }
            self.durable = durable
            return true
        }
        guard started else { return }
        firstAttempt = nil
        // The close arrives on the connection's event loop, which must not wait for a handler.
        connection.onClose { [weak self] in
            guard let self else { return }
            DispatchQueue.global().async { self.lost(connection) }
        }
        durable.wake()
    }

    /// The lock's session ended: stop delivering (another session may hold the name now) and claim it again.
    private func lost(_ connection: ServerConnection) {
        let current = lock.withLock { () -> DurableListener<PostgresStore>? in
            guard !isStopped else { return nil }
            defer { durable = nil }
            return durable
        }
        guard let current else { return }
        current.stop()
        store?.configuration.logger.warning("durable listener lost its name's lock; claiming it again", metadata: ["listener": "\(name)"])
        queue.async { self.attempt() }
    }
}
#endif
