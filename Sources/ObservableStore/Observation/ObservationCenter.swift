import Dispatch
import Foundation
import Logging
import ObservableStoreCore
import StoreSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The named listeners of a store, and the fan-out of each commit to them.
///
/// Listeners are indexed by the tables and keys of their filters (``ListenerIndex``): a commit costs in
/// proportion to the listeners it may match, not to all of them, and registering one costs in proportion
/// to its filter. `changes()` streams are listeners without a name (`streams`): not in ``names``.
///
/// `@unchecked Sendable`: `byName`, `streams`, `channels` and the two indexes are guarded by `lock`;
/// `ownWriteInProgress` and `lastOwnWrite` by `ownWriteLock`; `lastPublished` by `publishLock`, which is held while a commit is handed over, so commits are
/// published once each and in sequence order whether the writer or the feed found them. They are
/// decoded and offered on `dispatchQueue`, a serial queue, in that order; a small commit is offered on
/// the publishing thread when nothing is waiting on that queue. `blocksOnQueue` is guarded by `queueLock`.
final class ObservationCenter: @unchecked Sendable {
    private let lock = NSLock()
    private var byName: [String: Listener] = [:]
    private var streams = ListenerSet()
    private var immediateIndex = ListenerIndex()
    private var queuedIndex = ListenerIndex()
    private let dispatchQueue = DispatchQueue(label: "ObservableStore.dispatch")
    /// Runs listeners' drains when free (see ``DeliveryThread``); listeners fall back to the global queue.
    let deliveryThread: DeliveryThread
    private let queueLock = NSLock()
    private var blocksOnQueue = 0  // guarded by queueLock: blocks sent to dispatchQueue that have not finished
    private var channels: [WeakChannel] = []
    private var isClosed = false
    private let ownWriteLock = NSLock()
    private var ownWriteInProgress = false  // guarded by ownWriteLock
    private var lastOwnWrite: ContinuousClock.Instant?  // guarded by ownWriteLock: when the last write ended
    /// Serializes publication (the writer's own commits and the feed's reads of the log).
    private let publishLock = NSLock()
    private var lastPublished: Int64 = 0  // guarded by publishLock
    private let publisherLock = NSLock()
    private var publisher: pthread_t?  // guarded by publisherLock
    let logger: Logger

    private struct WeakChannel {
        weak var channel: EventChannel?
    }

    init(logger: Logger, deliverySpinWindow: Duration = .zero) {
        self.logger = logger
        self.deliveryThread = DeliveryThread(spinWindow: deliverySpinWindow)
    }

    /// A center that was never closed (a store whose opening failed after creating it) still ends its thread.
    deinit {
        deliveryThread.stop()
    }

    /// Registers `listener`, replacing (and cancelling) any listener of the same name; a stream
    /// (``Listener/isStream``) has no name to replace. When this returns, the replaced listener's handler
    /// is not running and will not run again.
    func register(_ listener: Listener) {
        listener.center = self
        let replaced = lock.withLock { () -> Listener? in
            if listener.isStream {
                streams.insert(listener)
                indexInsert(listener)
                return nil
            }
            let old = byName.updateValue(listener, forKey: listener.name)
            if let old { indexRemove(old) }
            indexInsert(listener)
            return old
        }
        replaced?.cancel()
    }

    /// Removes the listener called `name`, if any; returns whether there was one.
    @discardableResult
    func remove(name: String) -> Bool {
        let removed = lock.withLock { () -> Listener? in
            let removed = byName.removeValue(forKey: name)
            if let removed { indexRemove(removed) }
            return removed
        }
        removed?.cancel()
        return removed != nil
    }

    /// Removes `listener` if it is still the one registered under its name (or a registered stream);
    /// cancels it either way.
    func remove(_ listener: Listener) {
        lock.withLock {
            if listener.isStream {
                if streams.remove(listener) { indexRemove(listener) }
            } else if byName[listener.name] === listener {
                byName.removeValue(forKey: listener.name)
                indexRemove(listener)
            }
        }
        listener.cancel()
    }

    /// Remembers `channel` so that closing the store ends its sequence.
    func track(_ channel: EventChannel) {
        let closed = lock.withLock { () -> Bool in
            channels.removeAll { $0.channel == nil }
            if !isClosed { channels.append(WeakChannel(channel: channel)) }
            return isClosed
        }
        if closed { channel.finish() }
    }

    /// Ends every change sequence and removes every listener (the store is closing).
    func closeStreams() {
        let (listeners, open) = lock.withLock { () -> ([Listener], [EventChannel]) in
            isClosed = true
            defer {
                byName.removeAll()
                streams = ListenerSet()
                channels.removeAll()
                immediateIndex = ListenerIndex()
                queuedIndex = ListenerIndex()
            }
            return (immediateIndex.all.listeners + queuedIndex.all.listeners, channels.compactMap(\.channel))
        }
        for listener in listeners { listener.cancel() }
        for channel in open { channel.finish() }
        deliveryThread.stop()
    }

    /// The names of the registered listeners, sorted; `changes()` streams are not among them.
    var names: [String] { lock.withLock { byName.keys.sorted() } }

    /// How many `changes()` streams are registered.
    var streamCount: Int { lock.withLock { streams.count } }

    /// Adds `listener` to its index; called with `lock` held.
    private func indexInsert(_ listener: Listener) {
        if listener.isImmediate { immediateIndex.insert(listener) } else { queuedIndex.insert(listener) }
    }

    /// Removes `listener` from its index; called with `lock` held.
    private func indexRemove(_ listener: Listener) {
        if listener.isImmediate { immediateIndex.remove(listener) } else { queuedIndex.remove(listener) }
    }

    // MARK: - Publishing, in sequence order, exactly once

    /// Publishes `logged`, committed by this process's writer on `connection`. Commits of other
    /// processes that came before it (sequence numbers in between) are read from the log and published
    /// first, so that listeners see one merged order. Called inside the write, right after COMMIT.
    func publishOwn(_ logged: LoggedCommit, on connection: Connection) {
        publishing {
            guard logged.sequence > lastPublished else { return }  // the feed already published it
            if logged.sequence > lastPublished + 1 { catchUp(through: logged.sequence - 1, on: connection) }
            deliver(logged)
            lastPublished = logged.sequence
        }
    }

    /// Called when the writer's work starts (a write, then the checkpoint after it). Until it ends,
    /// and for a moment after, the change feed polls instead of waking for each of this process's file writes:
    /// a long write (a bulk insert spilling pages to the WAL) would otherwise wake it up to once a millisecond.
    func ownWriteStarted() {
        ownWriteLock.withLock { ownWriteInProgress = true }
    }

    /// Called when that work has ended (committed and published or rolled back, and checkpointed if due).
    func ownWriteEnded() {
        ownWriteLock.withLock {
            ownWriteInProgress = false
            lastOwnWrite = .now
        }
    }

    /// When this process's writer last ended its work (nil before its first write).
    var lastOwnWriteEnd: ContinuousClock.Instant? {
        ownWriteLock.withLock { lastOwnWrite }
    }

    /// Whether this process's writer is at work, or stopped within `window` from now.
    func isWriting(orWroteWithin window: Duration) -> Bool {
        ownWriteLock.withLock { ownWriteInProgress || (lastOwnWrite.map { ContinuousClock.now - $0 < window } ?? false) }
    }

    /// Publishes every logged commit after the last published one (commits of other processes, read by the feed).
    ///
    /// `newest` is the newest sequence the caller saw in the log: when this process's writer already
    /// published it, the log is not read (the feed sees every own commit too, and reading the log while
    /// holding the publishing lock would hold up the writer's next publication).
    func publishFromLog(on connection: Connection, newest: Int64? = nil) {
        publishing {
            if let newest, newest <= lastPublished { return }
            catchUp(through: nil, on: connection)
        }
    }

    /// Tells every listener of this process that a foreign writer changed the file, without a log entry
    /// (when logging it failed): refetch. Durable listeners read the log and do not get it.
    func publishExternalChange() {
        publishing { offerToAll(.externalChange) }
    }

    /// Sets the sequence after which commits are published (at open: history is not replayed).
    func startPublishing(after sequence: Int64) {
        publishLock.withLock { lastPublished = sequence }
    }

    /// Whether the current thread is publishing (delivering to immediate listeners); a write from there
    /// would wait for the publication it is part of.
    var isPublishingOnCurrentThread: Bool {
        publisherLock.withLock { publisher.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    private func publishing(_ body: () -> Void) {
        publishLock.withLock {
            publisherLock.withLock { publisher = pthread_self() }
            defer { publisherLock.withLock { publisher = nil } }
            body()
        }
    }

    /// Reads and delivers the log after `lastPublished` (up to `last`), page by page. Commits no longer
    /// in the log (pruned) become one gap event.
    private func catchUp(through last: Int64?, on connection: Connection) {
        // Nobody listens: move past the log without reading its payloads (a bulk commit's is megabytes).
        if lock.withLock({ immediateIndex.isEmpty && queuedIndex.isEmpty }) {
            if let newest = last ?? (try? ChangeLog.position(on: connection).last), newest > lastPublished {
                lastPublished = newest
            }
            return
        }
        while true {
            let commits: [LoggedCommit]
            do {
                commits = try ChangeLog.read(after: lastPublished, through: last, limit: 512, on: connection)
            } catch {
                logger.error("cannot read the change log", metadata: ["error": "\(error)"])
                if let last, lastPublished < last {
                    offerToAll(.gap(missed: (lastPublished + 1)...last))
                    lastPublished = last
                }
                return
            }
            if let first = commits.first, first.sequence > lastPublished + 1 {
                offerToAll(.gap(missed: (lastPublished + 1)...(first.sequence - 1)))
            }
            for commit in commits {
                deliver(commit)
                lastPublished = commit.sequence
            }
            if commits.count < 512 { break }
        }
        if let last, lastPublished < last {
            offerToAll(.gap(missed: (lastPublished + 1)...last))
            lastPublished = last
        }
    }

    /// Hands one commit to the listeners it may match (see ``ListenerIndex``): immediate ones now, on this
    /// thread; the others through the dispatch queue.
    private func deliver(_ logged: LoggedCommit) {
        if logged.isExternalChange { return offerToAll(.externalChange) }
        // Copies of the indexes as they are now: a listener registered after this commit was published does
        // not get it, even when the queue matches it later.
        let (immediate, queued) = lock.withLock { (immediateIndex, queuedIndex) }
        guard !immediate.isEmpty || !queued.isEmpty else { return }
        let decoded = immediate.isEmpty ? nil : decode(logged)
        if let decoded {
            for listener in immediate.listeners(for: decoded) {
                deliver(decoded, sequence: logged.sequence, to: listener, immediately: true)
            }
        }
        guard !queued.isEmpty else { return }
        if logged.payload.count <= ObservationCenter.offerHereLimit, queued.unfilteredCount <= ObservationCenter.offerHereListeners,
            queueIsIdle
        {
            // A small commit, and every earlier event is already offered (all offers happen while publishing,
            // so none can slip in between): decode it here and, when it matches a few listeners, offer it
            // here. The handler is then one thread hop away instead of two. Large commits, and fan-outs to
            // many listeners, are handled on the queue, off the writer's thread.
            let commit = decoded ?? decode(logged)
            let listeners = queued.listeners(for: commit)
            if listeners.count <= ObservationCenter.offerHereListeners {
                for listener in listeners { deliver(commit, sequence: logged.sequence, to: listener, immediately: false, warm: true) }
            } else {
                onQueue {
                    for listener in listeners { self.deliver(commit, sequence: logged.sequence, to: listener, immediately: false) }
                }
            }
            return
        }
        onQueue {
            let commit = decoded ?? self.decode(logged)
            for listener in queued.listeners(for: commit) {
                self.deliver(commit, sequence: logged.sequence, to: listener, immediately: false)
            }
        }
    }

    /// The largest payload (bytes) decoded on the publishing thread rather than on the dispatch queue.
    static let offerHereLimit = 4096
    /// The most queued listeners a commit is offered to on the publishing thread (those it may match).
    static let offerHereListeners = 8

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

    /// Hands an event that concerns everyone (gap, external change) to every listener in its place in
    /// the order: immediate listeners now, as they get commits; the others after the commits already queued.
    private func offerToAll(_ event: StoreEvent) {
        let (immediate, queued) = lock.withLock { (immediateIndex.all.listeners, queuedIndex.all.listeners) }
        for listener in immediate { listener.deliverNow(event: event) }
        guard !queued.isEmpty else { return }
        onQueue {
            for listener in queued { listener.offerToAll(event) }
        }
    }

    /// Runs `body` on the dispatch queue, after every commit already published has been offered.
    func afterPublished(_ body: @escaping @Sendable () -> Void) {
        onQueue(body)
    }

    private func decode(_ logged: LoggedCommit) -> Result<Commit, any Error> {
        Result { try logged.decoded() }
    }

    private func deliver(
        _ commit: Result<Commit, any Error>, sequence: Int64, to listener: Listener, immediately: Bool, warm: Bool = false
    ) {
        switch commit {
        case .success(let commit):
            if immediately { listener.deliverNow(commit) } else { listener.offer(commit, warm: warm) }
        case .failure(let error):
            logger.error("a committed change set could not be decoded", metadata: ["error": "\(error)"])
            listener.offerToAll(.gap(missed: sequence...sequence))
        }
    }
}
