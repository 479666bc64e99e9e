import Dispatch
import Foundation
import Logging

/// The named listeners of a store, and the fan-out of each commit to them.
///
/// `@unchecked Sendable`: `byName` and the two snapshot arrays are guarded by `lock`. Commits are
/// decoded and offered on `dispatchQueue`, a serial queue, in the order the writer published them.
final class ObservationCenter: @unchecked Sendable {
    private let lock = NSLock()
    private var byName: [String: Listener] = [:]
    private var immediateListeners: [Listener] = []
    private var queuedListeners: [Listener] = []
    private let dispatchQueue = DispatchQueue(label: "ObservableStore.dispatch")
    private var channels: [WeakChannel] = []
    let logger: Logger

    private struct WeakChannel {
        weak var channel: EventChannel?
    }

    init(logger: Logger) {
        self.logger = logger
    }

    /// Registers `listener`, replacing (and cancelling) any listener of the same name.
    /// When this returns, the replaced listener's handler is not running and will not run again.
    func register(_ listener: Listener) {
        listener.center = self
        let replaced = lock.withLock { () -> Listener? in
            let old = byName.updateValue(listener, forKey: listener.name)
            rebuildSnapshots()
            return old
        }
        replaced?.cancel()
    }

    /// Removes the listener called `name`, if any; returns whether there was one.
    @discardableResult
    func remove(name: String) -> Bool {
        let removed = lock.withLock { () -> Listener? in
            defer { rebuildSnapshots() }
            return byName.removeValue(forKey: name)
        }
        removed?.cancel()
        return removed != nil
    }

    /// Removes `listener` if it is still the one registered under its name; cancels it either way.
    func remove(_ listener: Listener) {
        lock.withLock {
            if byName[listener.name] === listener {
                byName.removeValue(forKey: listener.name)
                rebuildSnapshots()
            }
        }
        listener.cancel()
    }

    /// Remembers `channel` so that closing the store ends its sequence.
    func track(_ channel: EventChannel) {
        lock.withLock {
            channels.removeAll { $0.channel == nil }
            channels.append(WeakChannel(channel: channel))
        }
    }

    /// Ends every change sequence and removes every listener (the store is closing).
    func closeStreams() {
        let (listeners, open) = lock.withLock { () -> ([Listener], [EventChannel]) in
            defer {
                byName.removeAll()
                channels.removeAll()
                rebuildSnapshots()
            }
            return (Array(byName.values), channels.compactMap(\.channel))
        }
        for listener in listeners { listener.cancel() }
        for channel in open { channel.finish() }
    }

    /// The names of the registered listeners, sorted.
    var names: [String] { lock.withLock { byName.keys.sorted() } }

    private func rebuildSnapshots() {
        immediateListeners = byName.values.filter(\.isImmediate)
        queuedListeners = byName.values.filter { !$0.isImmediate }
    }

    /// Hands a committed transaction to the listeners: immediate ones now, on this thread; the others
    /// through the dispatch queue. Called by the writer right after COMMIT succeeded, in sequence order.
    func publish(_ logged: LoggedCommit) {
        let (immediate, queued) = lock.withLock { (immediateListeners, queuedListeners) }
        guard !immediate.isEmpty || !queued.isEmpty else { return }
        let decoded = immediate.isEmpty ? nil : decode(logged)
        if let decoded {
            for listener in immediate { deliver(decoded, sequence: logged.sequence, to: listener, immediately: true) }
        }
        guard !queued.isEmpty else { return }
        dispatchQueue.async {
            let commit = decoded ?? self.decode(logged)
            for listener in queued { self.deliver(commit, sequence: logged.sequence, to: listener, immediately: false) }
        }
    }

    /// Runs `body` on the dispatch queue, after every commit already published has been offered.
    func afterPublished(_ body: @escaping @Sendable () -> Void) {
        dispatchQueue.async(execute: body)
    }

    private func decode(_ logged: LoggedCommit) -> Result<Commit, any Error> {
        Result { try logged.decoded() }
    }

    private func deliver(_ commit: Result<Commit, any Error>, sequence: Int64, to listener: Listener, immediately: Bool) {
        switch commit {
        case .success(let commit):
            if immediately { listener.deliverNow(commit) } else { listener.offer(commit) }
        case .failure(let error):
            logger.error("a committed change set could not be decoded", metadata: ["error": "\(error)"])
            listener.offerGap(sequence...sequence)
        }
    }
}
