import Dispatch
import Foundation
import Logging

/// Hands each commit of an engine's change log to the registered listeners: once, in sequence order,
/// whether the engine's writer found it (its own commit) or its feed did (another process's).
///
/// The engine calls ``publishOwn(_:log:)`` right after each of its commits, and ``publishFromLog(_:newest:)``
/// when its feed sees the log move; both read the commits in between from the log, so listeners see one
/// merged order. Commits the log no longer holds become one `.resync(.missedCommits)` event.
///
/// Delivery: immediate listeners are called on the publishing thread; the others are offered the commit on a
/// serial dispatch queue, in order, or on the publishing thread when the commit is small, nothing is waiting on
/// that queue and it matches a few listeners (one thread hop to the handler instead of two).
///
/// `@unchecked Sendable`: `lastPublished` is guarded by `publishLock`, held for a whole publication (which
/// reads the log and delivers: a `Mutex`'s closure could not call the methods that do); `blocksOnQueue` by
/// `queueLock`.
package final class CommitPublisher<Entry: ChangeLogEntry>: @unchecked Sendable {
    private let registry: ListenerRegistry
    private let logger: Logger
    private let dispatchQueue = DispatchQueue(label: "ObservableStore.dispatch")
    private let queueLock = NSLock()
    private var blocksOnQueue = 0  // guarded by queueLock: blocks sent to dispatchQueue that have not finished
    /// Serializes publication (the writer's own commits and the feed's reads of the log).
    private let publishLock = NSLock()
    private var lastPublished: Int64 = 0  // guarded by publishLock

    /// A publisher to `registry`'s listeners.
    package init(registry: ListenerRegistry, logger: Logger) {
        self.registry = registry
        self.logger = logger
    }

    /// The last sequence published (a feed reads the log after it).
    package var lastPublishedSequence: Int64 { publishLock.withLock { lastPublished } }

    /// Whether any listener is registered (when none is, publishing reads no log entry).
    package var hasListeners: Bool { !registry.isEmpty }

    /// Sets the sequence after which commits are published (at open: history is not replayed).
    package func startPublishing(after sequence: Int64) {
        publishLock.withLock { lastPublished = sequence }
    }

    /// Publishes `entry`, just committed by this process's writer. Commits of other processes that came
    /// before it (sequence numbers in between) are read from `log` and published first.
    package func publishOwn(_ entry: Entry, log: some ChangeLogReading<Entry>) {
        publishing {
            guard entry.sequence > lastPublished else { return }  // the feed already published it
            if entry.sequence > lastPublished + 1 { catchUp(through: entry.sequence - 1, log: log) }
            deliver(entry, log: log)
            lastPublished = entry.sequence
        }
    }

    /// Publishes every logged commit after the last published one (commits of other processes, read by a feed).
    ///
    /// `newest` is the newest sequence the caller saw in the log: when this process's writer already
    /// published it, the log is not read (the feed sees every own commit too, and reading the log while
    /// holding the publishing lock would hold up the writer's next publication).
    package func publishFromLog(_ log: some ChangeLogReading<Entry>, newest: Int64? = nil) {
        publishing {
            if let newest, newest <= lastPublished { return }
            catchUp(through: nil, log: log)
        }
    }

    /// Tells every listener that a foreign writer changed the store without a log entry (when logging it
    /// failed): refetch. Durable listeners read the log and do not get it.
    package func publishExternalChange() {
        publishing { offerToAll(.resync(.externalChange)) }
    }

    /// Runs `body` on the dispatch queue, after every commit already published has been offered.
    package func afterPublished(_ body: @escaping @Sendable () -> Void) {
        onQueue(body)
    }

    /// The largest entry (encoded bytes) decoded on the publishing thread rather than on the dispatch queue.
    static var offerHereLimit: Int { 4096 }
    /// The most queued listeners a commit is offered to on the publishing thread (those it may match).
    static var offerHereListeners: Int { 8 }

    private func publishing(_ body: () -> Void) {
        publishLock.withLock { registry.context.publishing(body) }
    }

    /// Reads and delivers the log after `lastPublished` (up to `last`), page by page. Commits no longer
    /// in the log (pruned) become one `.resync(.missedCommits)` event.
    private func catchUp(through last: Int64?, log: some ChangeLogReading<Entry>) {
        // Nobody listens: move past the log without reading its entries (a bulk commit's is megabytes).
        if registry.isEmpty {
            if let newest = last ?? (try? log.lastSequence()), newest > lastPublished { lastPublished = newest }
            return
        }
        while true {
            let entries: [Entry]
            do {
                entries = try log.entries(after: lastPublished, through: last, limit: 512)
            } catch {
                logger.error("cannot read the change log", metadata: ["error": "\(error)"])
                if let last, lastPublished < last {
                    offerToAll(.resync(.missedCommits((lastPublished + 1)...last)))
                    lastPublished = last
                }
                return
            }
            if let first = entries.first, first.sequence > lastPublished + 1 {
                offerToAll(.resync(.missedCommits((lastPublished + 1)...(first.sequence - 1))))
            }
            for entry in entries {
                deliver(entry, log: log)
                lastPublished = entry.sequence
            }
            // A page may end before `limit` (``ChangeLogReading/entries(after:through:limit:)``): only an empty
            // one, or reaching `last`, is the end.
            if entries.isEmpty { break }
            if let last, lastPublished >= last { break }
        }
        if let last, lastPublished < last {
            offerToAll(.resync(.missedCommits((lastPublished + 1)...last)))
            lastPublished = last
        }
    }

    /// Hands one commit to the listeners it may match (see ``ListenerIndex``): immediate ones now, on this
    /// thread; the others through the dispatch queue. A commit logged in pieces is read from `log` piece by piece.
    private func deliver(_ entry: Entry, log: some ChangeLogReading<Entry>) {
        if entry.isExternalChange { return offerToAll(.resync(.externalChange)) }
        if entry.pieceCount > 1 { return deliverPieces(of: entry, log: log) }
        let (immediate, queued) = registry.indexes
        guard !immediate.isEmpty || !queued.isEmpty else { return }
        let decoded = immediate.isEmpty ? nil : decode(entry)
        if let decoded {
            for listener in immediate.listeners(for: decoded) {
                deliver(decoded, sequence: entry.sequence, to: listener, immediately: true)
            }
        }
        guard !queued.isEmpty else { return }
        if entry.encodedSize <= Self.offerHereLimit, queued.unfilteredCount <= Self.offerHereListeners, queueIsIdle {
            // A small commit, and every earlier event is already offered (all offers happen while publishing,
            // so none can slip in between): decode it here and, when it matches a few listeners, offer it
            // here. Large commits, and fan-outs to many listeners, are handled on the queue, off the
            // publishing thread.
            let commit = decoded ?? decode(entry)
            let listeners = queued.listeners(for: commit)
            if listeners.count <= Self.offerHereListeners {
                for listener in listeners { deliver(commit, sequence: entry.sequence, to: listener, immediately: false, warm: true) }
            } else {
                onQueue {
                    for listener in listeners { self.deliver(commit, sequence: entry.sequence, to: listener, immediately: false) }
                }
            }
            return
        }
        onQueue {
            let commit = decoded ?? self.decode(entry)
            for listener in queued.listeners(for: commit) {
                self.deliver(commit, sequence: entry.sequence, to: listener, immediately: false)
            }
        }
    }

    /// Hands a commit logged in pieces to the listeners, one piece at a time: each piece is read from `log`,
    /// decoded and offered on this thread, so that only one piece is in memory here (listeners' buffers are
    /// bounded). Everything offered before goes first: the dispatch queue is drained before the first piece.
    /// The last piece is offered to every listener: one that got an earlier piece always gets it (``Listener``).
    private func deliverPieces(of first: Entry, log: some ChangeLogReading<Entry>) {
        let (immediate, queued) = registry.indexes
        guard !immediate.isEmpty || !queued.isEmpty else { return }
        if !queued.isEmpty { dispatchQueue.sync {} }
        let sequence = first.sequence
        for index in 0..<first.pieceCount {
            var piece = first
            if index > 0 {
                do {
                    guard let read = try log.piece(index, of: sequence) else { throw StoreError(.notFound, "pruned") }
                    piece = read
                } catch {
                    logger.error("cannot read a piece of a commit", metadata: ["sequence": "\(sequence)", "error": "\(error)"])
                    return offerToAll(.resync(.missedCommits(sequence...sequence)))
                }
            }
            let commit = decode(piece)
            let isLast = index == first.pieceCount - 1
            for listener in isLast ? immediate.all.listeners : immediate.listeners(for: commit) {
                deliver(commit, sequence: sequence, to: listener, immediately: true)
            }
            for listener in isLast ? queued.all.listeners : queued.listeners(for: commit) {
                deliver(commit, sequence: sequence, to: listener, immediately: false)
            }
        }
    }

    /// Runs `body` on the dispatch queue, counted until it has run.
    private func onQueue(_ body: @escaping @Sendable () -> Void) {
        queueLock.withLock { blocksOnQueue += 1 }
        dispatchQueue.async {
            body()
            self.queueLock.withLock { self.blocksOnQueue -= 1 }
        }
    }

    /// Whether every block sent to the dispatch queue has finished.
    private var queueIsIdle: Bool { queueLock.withLock { blocksOnQueue == 0 } }

    /// Hands an event that concerns everyone (a resync) to every listener in its place in
    /// the order: immediate listeners now, as they get commits; the others after the commits already queued.
    private func offerToAll(_ event: StoreEvent) {
        let (immediate, queued) = registry.indexes
        for listener in immediate.all.listeners { listener.deliverNow(event: event) }
        guard !queued.isEmpty else { return }
        let listeners = queued.all.listeners
        onQueue {
            for listener in listeners { listener.offerToAll(event) }
        }
    }

    private func decode(_ entry: Entry) -> Result<Commit, any Error> {
        Result { try entry.decoded() }
    }

    private func deliver(
        _ commit: Result<Commit, any Error>, sequence: Int64, to listener: Listener, immediately: Bool, warm: Bool = false
    ) {
        switch commit {
        case .success(let commit):
            if immediately { listener.deliverNow(commit) } else { listener.offer(commit, warm: warm) }
        case .failure(let error):
            logger.error("a committed change set could not be decoded", metadata: ["error": "\(error)"])
            listener.offerToAll(.resync(.missedCommits(sequence...sequence)))
        }
    }
}
