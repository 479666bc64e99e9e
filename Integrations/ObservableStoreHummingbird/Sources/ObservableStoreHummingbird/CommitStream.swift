import CoreMetrics
import Dispatch
import Foundation
import Logging
import ObservableStore
import Synchronization

/// The store's commits as Server-Sent Events, for any number of clients: made by
/// ``StoreService/commitStream(_:)`` and served by `Router.addCommitStream(_:_:)`.
///
/// Each frame's `id:` is the commit's sequence, so a client that reconnects with `Last-Event-ID` (or `?since=`)
/// gets exactly the commits it missed, replayed from the change log, then the live ones, with no gap and no
/// duplicate. The stream has one store listener whatever the number of clients: it reads each new commit from the
/// change log once, encodes its frame once, and appends that frame to every client's bounded queue.
///
/// For example:
///
/// ```swift
/// let service = try StoreService(path: "board.sqlite")
/// let router = Router()
/// router.addCommitStream("events", try service.commitStream())
/// let app = Application(router: router, services: [service])
/// ```
public final class CommitStream: Sendable {
    /// Why a client is told to read everything again (the `reason` of an `event: resync` frame).
    public enum ResyncReason: String, Sendable, CaseIterable {
        /// The resume point is older than the change log keeps, or beyond its last sequence.
        case retention
        /// The client's buffer overflowed: it read more slowly than commits came.
        case overflow
        /// A program that does not log its changes (the `sqlite3` shell) wrote the store.
        case externalChange = "external_change"
    }

    /// What the stream reads from the change log: the last entry it sent to the clients.
    private struct Pump {
        var head: Int64
        var last: Commit?
        var encoder: FrameEncoder
    }

    private struct Clients {
        var queues: [ObjectIdentifier: ClientQueue] = [:]
        var finished = false
    }

    /// The options the stream was made with.
    public let options: CommitStreamOptions
    let store: any RecordStore
    let metrics: CommitStreamMetrics
    let logger: Logger
    private let pump: Mutex<Pump>
    private let clients = Mutex(Clients())
    private let listener = Mutex<ListenerToken?>(nil)
    private let heartbeat: Mutex<(any DispatchSourceTimer)?>

    init(store: any RecordStore, options: CommitStreamOptions, metrics: CommitStreamMetrics, logger: Logger) throws {
        self.store = store
        self.options = options
        self.metrics = metrics
        self.logger = logger
        pump = Mutex(Pump(head: try store.lastSequence(), last: nil, encoder: FrameEncoder(filter: options.filter)))
        heartbeat = Mutex(nil)
        // The listener only says the log moved (its events are not used: the log has every entry, with its
        // sequence, external changes included); one slot, since a missed ring is covered by the next one.
        let name = "commit-stream-\(options.name)-\(UUID().uuidString)"
        let token = store.listen(name, options: ListenerOptions(bufferSize: 1)) { [weak self] _ in self?.advance() }
        listener.withLock { $0 = token }
        advance()  // a commit made between reading the head and registering the listener
        startHeartbeat()
    }

    /// How many clients are connected now.
    public var clientCount: Int { clients.withLock { $0.queues.count } }

    /// Whether the stream has been finished (``finish()``): it takes no new clients.
    public var isFinished: Bool { clients.withLock { $0.finished } }

    /// Ends the stream: stops listening and heartbeats, and ends every client's response (each gets what was
    /// already queued for it). New requests are answered 503. ``StoreService`` calls this on graceful shutdown.
    public func finish() {
        let queues = clients.withLock { clients in
            clients.finished = true
            return Array(clients.queues.values)
        }
        listener.withLock { token in
            token?.cancel()
            token = nil
        }
        heartbeat.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        for queue in queues { queue.finish() }
    }

    /// Waits until no client is connected, or `timeout` passed; returns whether none is. It waits even in a
    /// cancelled task (a service group that escalated shutdown to cancellation), since the clients' handlers are
    /// then ending too.
    public func waitForClientsToLeave(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while clientCount > 0 {
            if ContinuousClock.now >= deadline { return false }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { continuation.resume() }
            }
        }
        return true
    }

    /// Registers a client's queue (before it reads the log, so no commit falls in between); nil once finished.
    func connect() -> ClientQueue? {
        let queue = ClientQueue(capacity: options.clientBufferSize, backlog: metrics.backlog)
        let added = clients.withLock { clients -> Bool in
            guard !clients.finished else { return false }
            clients.queues[ObjectIdentifier(queue)] = queue
            return true
        }
        guard added else { return nil }
        metrics.clients.increment()
        return queue
    }

    /// Removes a client's queue (its response ended, or the client went away).
    func disconnect(_ queue: ClientQueue) {
        let removed = clients.withLock { $0.queues.removeValue(forKey: ObjectIdentifier(queue)) != nil }
        queue.discard()
        if removed { metrics.clients.decrement() }
    }

    /// Reads the change log after the last entry sent, and fans each entry's frame out to every client. Runs on the
    /// store's delivery thread (one call at a time), and once from `init`: the pump's lock serializes the two.
    private func advance() {
        pump.withLock { pump in
            do {
                while true {
                    let page = try pump.last.map { try store.commits(following: $0, limit: 256) } ?? store.commits(after: pump.head, limit: 256)
                    guard let end = page.last else { return }
                    if let first = page.first, first.piece.index == 0, first.sequence > pump.head + 1 {
                        // Pruned before this process read them (another process's retention): everybody refetches.
                        fanOut(.resync(.retention, at: first.sequence - 1))
                    }
                    for entry in page {
                        if entry.isLastPiece, !entry.isExternalChange { metrics.commits.increment() }
                        if let frame = pump.encoder.frame(for: entry, live: true) {
                            fanOut(frame)
                        }
                    }
                    pump.last = end
                    pump.head = end.sequence
                }
            } catch {
                logger.warning("commit stream \(options.name): reading the change log failed: \(error)")
            }
        }
    }

    /// Appends `frame` to every client's queue.
    private func fanOut(_ frame: EventFrame) {
        let change = clients.withLock { clients in
            clients.queues.values.reduce(0) { $0 + $1.push(frame) }
        }
        if change != 0 { metrics.backlog.increment(by: Double(change)) }
    }

    /// Starts the timer that sends idle clients a heartbeat (a dispatch timer: no task per stream or per client).
    private func startHeartbeat() {
        let nanoseconds = Int(options.heartbeatInterval / .nanoseconds(1))
        heartbeat.withLock { slot in
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "commit-stream-heartbeat"))
            let interval = DispatchTimeInterval.nanoseconds(max(1_000_000, nanoseconds))
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
            timer.setEventHandler { [weak self] in
                guard let self else { return }
                let queues = clients.withLock { Array($0.queues.values) }
                for queue in queues { queue.pushHeartbeatIfIdle() }
            }
            timer.resume()
            slot = timer
        }
    }
}
