import Dispatch
import Foundation
import Logging

/// The engine of one durable listener: on each wake-up it reads the change log after its cursor, page by
/// page, through the ``StoreEngine`` protocol, hands each matching commit to the handler and acknowledges it
/// when the handler returns. Reading from the log (not from memory) means no buffer can overflow and a
/// restart resumes where the cursor stands.
///
/// An ordinary listener of the store wakes it (``wake()``) on every event; whatever the event, the pump
/// reads the log, where foreign writes are logged too (as markers).
///
/// `@unchecked Sendable`: `cursor` and `retryDelay` are used only on `queue` (serial);
/// `isStopped` and `isScheduled` are guarded by `lock`.
package final class DurableListener<Engine: StoreEngine>: @unchecked Sendable {
    package let name: String
    private let filter: ChangeFilter
    private let handler: @Sendable (DurableEvent) throws -> Void
    private weak var engine: Engine?
    private let context: DeliveryContext
    private let logger: Logger
    private let errorHandler: (@Sendable (String, any Error) -> Void)?
    private let queue: DispatchQueue
    private let lock = NSLock()
    private var isStopped = false
    private var isScheduled = false
    private var cursor: Int64
    /// How many pieces of commit `cursor + 1` are acknowledged (a commit logged in pieces: see ``Commit/piece``).
    private var cursorPieces: Int
    /// The wait before retrying after a handler error: 100 ms, doubling up to 10 s, reset by a success.
    private var retryDelay: Double = 0.1

    /// A durable listener of `engine` whose stored cursor stands at `cursor` (and `cursorPieces` pieces of the
    /// commit after it); it does nothing until woken.
    package init(
        name: String, filter: ChangeFilter, cursor: Int64, cursorPieces: Int = 0, engine: Engine, context: DeliveryContext, logger: Logger,
        errorHandler: (@Sendable (String, any Error) -> Void)?, handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) {
        self.name = name
        self.filter = filter
        self.cursor = cursor
        self.cursorPieces = cursorPieces
        self.engine = engine
        self.context = context
        self.logger = logger
        self.errorHandler = errorHandler
        self.handler = handler
        self.queue = DispatchQueue(label: "ObservableStore.durable.\(name)")
    }

    /// Schedules a pump (coalesced).
    package func wake() {
        let schedule = lock.withLock { () -> Bool in
            guard !isStopped else { return false }
            defer { isScheduled = true }
            return !isScheduled
        }
        if schedule { queue.async { self.pump() } }
    }

    /// Stops delivery; waits for a delivery in progress, unless called from the handler or from a
    /// place where waiting could deadlock (see ``Listener/cancel()``).
    package func stop() {
        lock.withLock { isStopped = true }
        if DispatchQueue.getSpecific(key: DurableListenerQueue.key) != ObjectIdentifier(self), context.mayWaitForHandlers {
            queue.sync {}
        }
    }

    private var stopped: Bool { lock.withLock { isStopped } }

    private func pump() {
        queue.setSpecific(key: DurableListenerQueue.key, value: ObjectIdentifier(self))
        lock.withLock { isScheduled = false }
        guard let engine else { return }
        do {
            while !stopped {
                let (entries, last) = try engine.readLog(after: cursor, limit: 256)
                // Commits after the cursor that the log no longer holds (pruned): say so, then move on.
                let firstKept = entries.first?.sequence ?? last + 1
                if firstKept > cursor + 1 {
                    try deliver(.resync(.cursorExpired(missed: (cursor + 1)...(firstKept - 1))))
                    try acknowledge(firstKept - 1, engine)
                }
                guard !entries.isEmpty else { break }
                var skipped: Int64?
                for entry in entries {
                    guard !stopped else { return }
                    if entry.isExternalChange {
                        // Every listener hears of a foreign write, whatever its filter, in its place in the order.
                        if let skipped { try acknowledge(skipped, engine) }
                        skipped = nil
                        try deliver(.resync(.externalChange))
                        try acknowledge(entry.sequence, engine)
                        continue
                    }
                    if entry.pieceCount > 1 {
                        if let skipped { try acknowledge(skipped, engine) }
                        skipped = nil
                        try deliverPieces(of: entry, engine)
                        continue
                    }
                    guard let commit = filter.apply(try entry.decoded()) else {
                        skipped = entry.sequence
                        continue
                    }
                    if let skipped { try acknowledge(skipped, engine) }
                    skipped = nil
                    let acknowledged = LockedValue(false)
                    do {
                        let delivery = DurableCommit(commit: commit, listenerName: name, acknowledged: acknowledged)
                        try deliver(.commit(delivery))
                    } catch where !stopped && (try? engine.cursor(of: name, isAtLeast: entry.sequence)) == true {
                        // The stored cursor is past this commit already: another consumer of the name acknowledged it
                        // (on PostgreSQL, a holder that had not yet noticed it lost the name), so the handler's own
                        // acknowledgement failed. Its effects are done: go on after it instead of retrying it forever.
                        logger.notice(
                            "durable listener skips a commit acknowledged elsewhere",
                            metadata: ["listener": "\(name)", "sequence": "\(entry.sequence)", "error": "\(error)"])
                        cursor = entry.sequence
                        cursorPieces = 0
                        continue
                    }
                    // Also after acknowledge(in:): that transaction may have rolled back; moving the cursor
                    // again is harmless (it never moves back).
                    try acknowledge(entry.sequence, engine, alreadyInStore: acknowledged.value)
                }
                if let skipped { try acknowledge(skipped, engine) }
            }
            retryDelay = 0.1
        } catch {
            // The commit stays unacknowledged: it is delivered again after a pause, at the next commit, or after a restart.
            guard !stopped else { return }
            logger.warning(
                "durable listener stopped at its cursor; retrying", metadata: ["listener": "\(name)", "error": "\(error)"])
            errorHandler?(name, error)
            queue.asyncAfter(deadline: .now() + retryDelay) { [weak self] in self?.wake() }
            retryDelay = min(retryDelay * 2, 10)
        }
    }

    /// Delivers a commit logged in pieces, from the first piece not yet acknowledged, reading one piece at a
    /// time; each piece delivered is acknowledged on its own. A piece its filter leaves out is skipped, but the
    /// last one is delivered (with no change of its own) when an earlier one was, also before a restart.
    private func deliverPieces(of entry: Engine.Entry, _ engine: Engine) throws {
        let sequence = entry.sequence
        // A stored piece count at or past the commit's (a damaged cursor row) acknowledges the whole commit.
        let start = sequence == cursor + 1 ? min(cursorPieces, entry.pieceCount) : 0
        if start == entry.pieceCount { return try acknowledge(sequence, engine) }
        var deliveredAny = start > 0
        for index in start..<entry.pieceCount {
            guard !stopped else { throw CancellationError() }
            guard let piece = index == 0 ? entry : try engine.readPiece(index, of: sequence) else {
                // Pruned while being read: the rest of the commit is gone.
                try deliver(.resync(.cursorExpired(missed: sequence...sequence)))
                return try acknowledge(sequence, engine)
            }
            let decoded = try piece.decoded()
            var commit = filter.apply(decoded)
            if commit == nil, decoded.isLastPiece, deliveredAny { commit = decoded.with(changes: []) }
            guard let commit else {
                if decoded.isLastPiece { try acknowledge(sequence, engine) }
                continue
            }
            deliveredAny = true
            let acknowledged = LockedValue(false)
            try deliver(.commit(DurableCommit(commit: commit, listenerName: name, acknowledged: acknowledged)))
            try acknowledge(decoded.piece, of: sequence, engine, alreadyInStore: acknowledged.value)
        }
    }

    /// Acknowledges `piece` of commit `sequence`: the whole commit when it is the last piece.
    private func acknowledge(_ piece: Commit.Piece, of sequence: Int64, _ engine: Engine, alreadyInStore: Bool) throws {
        if piece.isLast { return try acknowledge(sequence, engine, alreadyInStore: alreadyInStore) }
        guard sequence > cursor + 1 || (sequence == cursor + 1 && piece.index + 1 > cursorPieces) else { return }
        let stored = try alreadyInStore && engine.cursor(of: name, isPast: piece, of: sequence)
        if !stored { try engine.advanceCursor(of: name, past: piece, of: sequence) }
        cursor = sequence - 1
        cursorPieces = piece.index + 1
    }

    private func deliver(_ event: DurableEvent) throws {
        guard !stopped else { throw CancellationError() }
        try handler(event)
    }

    private func acknowledge(_ sequence: Int64, _ engine: Engine, alreadyInStore: Bool = false) throws {
        guard sequence > cursor else { return }
        let stored = try alreadyInStore && engine.cursor(of: name, isAtLeast: sequence)
        if !stored { try engine.advanceCursor(of: name, to: sequence) }
        cursor = sequence
        cursorPieces = 0
    }
}

/// Marks a durable listener's queue, so that ``DurableListener/stop()`` called from its own handler does not wait
/// for itself (a generic type cannot hold the static key).
private enum DurableListenerQueue {
    static let key = DispatchSpecificKey<ObjectIdentifier>()
}
