import Dispatch
import Foundation
import Logging
import ObservableStoreCore
import StoreSQLite

/// A commit delivered to a durable listener, with the means to acknowledge it inside a write.
public struct DurableCommit: Sendable {
    /// The commit (only the changes matching the listener's filter).
    public let commit: Commit
    /// The durable listener's name.
    public let listenerName: String
    let acknowledged: LockedValue<Bool>

    /// Moves the listener's cursor past this commit inside `transaction`, so that the handler's own
    /// writes and the acknowledgement commit together (exactly-once effects). Without it, the store
    /// acknowledges after the handler returns (at-least-once).
    ///
    /// For example:
    ///
    /// ```swift
    /// try store.listenDurably("mailer", filter: .table("user_info")) { event in
    ///     guard case .commit(let delivery) = event else { return }
    ///     try store.write { tx in
    ///         try tx.execute("INSERT INTO outbox (seq) VALUES (?)", [delivery.commit.sequence])
    ///         try delivery.acknowledge(in: tx)
    ///     }
    /// }
    /// ```
    public func acknowledge(in transaction: Transaction) throws {
        try DurableCursor.advance(listenerName, to: commit.sequence, in: transaction)
        acknowledged.value = true
    }
}

/// What a durable listener receives.
public enum DurableEvent: Sendable {
    /// A commit matching the filter, not yet acknowledged.
    case commit(DurableCommit)
    /// The listener's cursor fell behind what the change log keeps: these commits are gone and the
    /// listener must resync from the current data. Delivered once; the cursor then moves past them.
    case cursorExpired(missed: ClosedRange<Int64>)
    /// A writer that does not log its changes changed the file: refetch.
    case externalChange
}

/// One durable listener's cursor, as stored in `_store_listeners`.
public struct DurableListenerInfo: Sendable, Equatable {
    /// The listener's name.
    public let name: String
    /// The last commit sequence it acknowledged.
    public let cursor: Int64
    /// How many commits were made after its cursor.
    public let lag: Int64
    /// When its cursor last moved.
    public let updatedAt: Date
}

/// Where a new durable listener starts.
public enum DurableStart: Sendable, Equatable {
    /// After the last commit made so far (the default): it receives only what comes next.
    case now
    /// With the oldest commit the change log still keeps.
    case beginning
}

/// The SQL of durable cursors.
enum DurableCursor {
    static let table = "_store_listeners"

    /// Moves `name`'s cursor forward to `sequence` (never back), inside `transaction`.
    static func advance(_ name: String, to sequence: Int64, in transaction: Transaction) throws {
        try transaction.execute(
            "UPDATE \(table) SET cursor_seq = max(cursor_seq, ?), updated_at = ? WHERE name = ?",
            [sequence, Timestamp.format(Date()), name])
        try ChangeLog.bumpBookkeeping(on: transaction.connection)
    }
}

/// The engine of one durable listener: on each wake-up it reads the change log after its cursor,
/// page by page, hands each matching commit to the handler and acknowledges it when the handler
/// returns. Reading from the log (not from memory) means no buffer can overflow and a restart
/// resumes where the cursor stands.
///
/// `@unchecked Sendable`: `cursor` and `retryDelay` are used only on `queue` (serial);
/// `isStopped` and `isScheduled` are guarded by `lock`.
final class DurableListener: @unchecked Sendable {
    let name: String
    private let filter: ChangeFilter
    private let handler: @Sendable (DurableEvent) throws -> Void
    private weak var store: Store?
    private let logger: Logger
    private let queue: DispatchQueue
    private let lock = NSLock()
    private var isStopped = false
    private var isScheduled = false
    private var cursor: Int64
    /// The wait before retrying after a handler error: 100 ms, doubling up to 10 s, reset by a success.
    private var retryDelay: Double = 0.1

    init(name: String, filter: ChangeFilter, cursor: Int64, store: Store, handler: @escaping @Sendable (DurableEvent) throws -> Void) {
        self.name = name
        self.filter = filter
        self.cursor = cursor
        self.store = store
        self.logger = store.configuration.logger
        self.handler = handler
        self.queue = DispatchQueue(label: "ObservableStore.durable.\(name)")
    }

    /// Schedules a pump (coalesced). Whatever the event, the pump reads the log: external changes are
    /// logged too, as markers.
    func wake() {
        let schedule = lock.withLock { () -> Bool in
            guard !isStopped else { return false }
            defer { isScheduled = true }
            return !isScheduled
        }
        if schedule { queue.async { self.pump() } }
    }

    /// Stops delivery; waits for a delivery in progress, unless called from the handler or from a
    /// place where waiting could deadlock (see ``Listener/cancel()``).
    func stop() {
        lock.withLock { isStopped = true }
        if DispatchQueue.getSpecific(key: DurableListener.queueKey) != ObjectIdentifier(self),
            Listener.mayWaitForHandlers(store?.observation)
        {
            queue.sync {}
        }
    }

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    private var stopped: Bool { lock.withLock { isStopped } }

    private func pump() {
        queue.setSpecific(key: DurableListener.queueKey, value: ObjectIdentifier(self))
        lock.withLock { isScheduled = false }
        guard let store else { return }
        do {
            while !stopped {
                let (commits, last) = try store.read { tx in
                    (try ChangeLog.read(after: cursor, limit: 256, on: tx.connection), try ChangeLog.position(on: tx.connection).last)
                }
                // Commits after the cursor that the log no longer holds (pruned): say so, then move on.
                let firstKept = commits.first?.sequence ?? last + 1
                if firstKept > cursor + 1 {
                    try deliver(.cursorExpired(missed: (cursor + 1)...(firstKept - 1)))
                    try acknowledge(firstKept - 1, store)
                }
                guard !commits.isEmpty else { break }
                var skipped: Int64?
                for logged in commits {
                    guard !stopped else { return }
                    if logged.isExternalChange {
                        // Every listener hears of a foreign write, whatever its filter, in its place in the order.
                        if let skipped { try acknowledge(skipped, store) }
                        skipped = nil
                        try deliver(.externalChange)
                        try acknowledge(logged.sequence, store)
                        continue
                    }
                    guard let commit = filter.apply(try logged.decoded()) else {
                        skipped = logged.sequence
                        continue
                    }
                    if let skipped { try acknowledge(skipped, store) }
                    skipped = nil
                    let acknowledged = LockedValue(false)
                    try deliver(.commit(DurableCommit(commit: commit, listenerName: name, acknowledged: acknowledged)))
                    // Also after acknowledge(in:): that transaction may have rolled back; moving the cursor
                    // again is harmless (it never moves back).
                    try acknowledge(logged.sequence, store, alreadyInStore: acknowledged.value)
                }
                if let skipped { try acknowledge(skipped, store) }
            }
            retryDelay = 0.1
        } catch {
            // The commit stays unacknowledged: it is delivered again after a pause, at the next commit, or after a restart.
            guard !stopped else { return }
            logger.warning(
                "durable listener stopped at its cursor; retrying", metadata: ["listener": "\(name)", "error": "\(error)"])
            store.configuration.listenerErrorHandler?(name, error)
            queue.asyncAfter(deadline: .now() + retryDelay) { [weak self] in self?.wake() }
            retryDelay = min(retryDelay * 2, 10)
        }
    }

    private func deliver(_ event: DurableEvent) throws {
        guard !stopped else { throw CancellationError() }
        try handler(event)
    }

    private func acknowledge(_ sequence: Int64, _ store: Store, alreadyInStore: Bool = false) throws {
        guard sequence > cursor else { return }
        let stored = try alreadyInStore && store.read { tx in
            try tx.fetchValue("SELECT cursor_seq >= ? FROM \(DurableCursor.table) WHERE name = ?", [sequence, name]) == .integer(1)
        }
        if !stored { try store.write { tx in try DurableCursor.advance(name, to: sequence, in: tx) } }
        cursor = sequence
    }
}
