import Foundation
import Logging
import Synchronization

/// One registered listener: its filter, a bounded buffer, and serial delivery to its handler.
///
/// Delivery runs on the store's ``DeliveryThread`` (small commits for a few listeners, when it is free),
/// else on a global dispatch queue, one
/// drain at a time per listener, so a listener sees
/// commits in sequence order and never concurrently with itself, and a slow handler delays no one
/// else. `immediate` listeners are called on the writer's thread instead, right after COMMIT.
///
/// Handler calls hold `deliveryLock` (recursive, so a handler may cancel its own listener), and `cancel()`
/// takes it too: once `cancel()` returns, the handler is not running and never runs again.
package final class Listener: Sendable {
    package let name: String
    package let filter: ChangeFilter
    package let isImmediate: Bool
    /// Whether this feeds a `changes()` stream: registered without a name (not in `listenerNames`, never replaced).
    package let isStream: Bool
    /// Called for each event; returns false when the listener's owner is gone (the listener then removes itself).
    private let handler: @Sendable (StoreEvent) throws -> Bool
    private let logger: Logger
    /// The engine's listener error handler (the SQLite engine's `SQLiteStoreConfiguration.listenerErrorHandler`):
    /// told about each error the handler throws.
    private let errorHandler: (@Sendable (String, any Error) -> Void)?
    /// The delivery thread, and whether the current thread may wait for the handler.
    private let context: DeliveryContext
    private let deliveryLock = NSRecursiveLock()
    private let state: Mutex<State>

    private struct State {
        var buffer: EventBuffer
        var isDraining = false
        /// Bind-and-fire: events are queued, not delivered, until ``release(after:initial:)``.
        var isHeld: Bool
        /// Events at or below this sequence are already part of the bound value.
        var floor: Int64 = 0
        var isCancelled = false
        /// The commit logged in pieces whose earlier piece this listener got: it gets the last piece too.
        var pieceSequence: Int64?
        weak var registry: ListenerRegistry?
        var onCancel: (@Sendable () -> Void)?
    }

    /// The registry it is registered with (set when registered): a handler returning false removes it there.
    var registry: ListenerRegistry? {
        get { state.withLock { $0.registry } }
        set { state.withLock { $0.registry = newValue } }
    }

    /// Runs once when the listener is cancelled (a durable listener stops its pump).
    package var onCancel: (@Sendable () -> Void)? {
        get { state.withLock { $0.onCancel } }
        set { state.withLock { $0.onCancel = newValue } }
    }

    init(
        name: String, filter: ChangeFilter, options: ListenerOptions, held: Bool = false, isStream: Bool = false,
        context: DeliveryContext, logger: Logger,
        errorHandler: (@Sendable (String, any Error) -> Void)? = nil, handler: @escaping @Sendable (StoreEvent) throws -> Bool
    ) {
        self.name = name
        self.filter = filter
        self.isImmediate = options.immediate
        self.isStream = isStream
        self.state = Mutex(State(buffer: EventBuffer(capacity: options.bufferSize), isHeld: held))
        self.context = context
        self.logger = logger
        self.errorHandler = errorHandler
        self.handler = handler
    }

    /// Queues the part of `commit` that matches, and starts a drain if none is running: on the store's
    /// delivery thread when `warm` and it is free (a commit for a few listeners), else on the global queue.
    package func offer(_ commit: Commit, warm: Bool = false) {
        guard let matching = matchingPart(of: commit) else { return }
        enqueue(.commit(matching), warm: warm)
    }

    /// What this listener gets of `commit`: the part its filter lets through; and the last piece of a commit
    /// logged in pieces, even with no change of its own, when it got an earlier piece (so it can tell the
    /// commit is complete).
    private func matchingPart(of commit: Commit) -> Commit? {
        let matching = filter.apply(commit)
        guard commit.piece.count > 1 else { return matching }
        return state.withLock { state -> Commit? in
            let gotEarlierPiece = state.pieceSequence == commit.sequence
            if commit.isLastPiece {
                state.pieceSequence = nil
                return matching ?? (gotEarlierPiece ? commit.with(changes: []) : nil)
            }
            if matching != nil { state.pieceSequence = commit.sequence }
            return matching
        }
    }

    /// Queues an event for every listener whatever its filter (a resync).
    package func offerToAll(_ event: StoreEvent) {
        enqueue(event)
    }

    private func enqueue(_ event: StoreEvent, warm: Bool = false) {
        let startDrain = state.withLock { state -> Bool in
            guard !state.isCancelled, event.sequence ?? .max > state.floor else { return false }
            state.buffer.push(event)
            guard !state.isDraining, !state.isHeld else { return false }
            state.isDraining = true
            return true
        }
        if startDrain { beginDraining(warm: warm) }
    }

    /// Drains the buffer on another thread: the store's delivery thread when `warm` and it is free, else the
    /// global queue. A fan-out to many listeners uses the global queue: it needs every core, and a thread
    /// that keeps looking for work would take one.
    private func beginDraining(warm: Bool) {
        if warm, context.thread.tryRun({ self.drain() }) { return }
        DispatchQueue.global().async { self.drain() }
    }

    /// Immediate delivery on the caller's thread (the writer, after COMMIT). A held listener queues instead.
    package func deliverNow(_ commit: Commit) {
        guard let matching = matchingPart(of: commit) else { return }
        deliverNow(event: .commit(matching))
    }

    /// Immediate delivery of `event` whatever the filter (a resync, or an already
    /// filtered commit). A held or draining listener queues it behind what it already holds.
    package func deliverNow(event: StoreEvent) {
        let held = state.withLock { $0.isHeld || $0.isDraining }
        if held { return enqueue(event) }
        invoke(event)
    }

    /// Bind-and-fire: runs `initial` (the first value) as a delivery, drops queued events at or below
    /// `sequence` (already part of that value), and starts delivering the rest.
    package func release(after sequence: Int64, initial: () -> Void) {
        deliveryLock.withLock {
            if !cancelled { initial() }
        }
        let startDrain = state.withLock { state -> Bool in
            state.floor = sequence
            state.buffer.drop(through: sequence)
            state.isHeld = false
            guard !state.isDraining, state.buffer.count > 0, !state.isCancelled else { return false }
            state.isDraining = true
            return true
        }
        if startDrain { beginDraining(warm: false) }
    }

    private func drain() {
        while true {
            let next = state.withLock { state -> StoreEvent? in
                if let event = state.buffer.pop() { return event }
                state.isDraining = false
                return nil
            }
            guard let next else { return }
            invoke(next)
        }
    }

    private func invoke(_ event: StoreEvent) {
        deliveryLock.withLock {
            guard !cancelled else { return }
            do {
                if try !handler(event) { registry?.remove(self) }
            } catch {
                logger.warning(
                    "listener threw; the event is skipped",
                    metadata: ["listener": "\(name)", "event": "\(event)", "error": "\(error)"])
                errorHandler?(name, error)
            }
        }
    }

    /// Stops delivery. Waits for a handler call in progress, unless called from that handler, or where
    /// ``DeliveryContext/mayWaitForHandlers`` says no (inside a write, or while publishing: the handler might be
    /// waiting for that very write, and waiting would deadlock). In those cases the handler may finish the
    /// call in progress, and never runs again.
    package func cancel() {
        let onFirstCancel = state.withLock { state -> (@Sendable () -> Void)?? in
            defer { state.isCancelled = true }
            state.buffer.removeAll()
            return state.isCancelled ? nil : .some(state.onCancel)
        }
        if context.mayWaitForHandlers { deliveryLock.withLock {} }
        if let onFirstCancel { onFirstCancel?() }
    }

    /// Whether ``cancel()`` was called.
    package var cancelled: Bool { state.withLock { $0.isCancelled } }
}
