import Foundation
import ObservableStoreCore

/// An `AsyncSequence` of a store's commits, for Swift concurrency callers.
///
/// The sequence buffers up to its size; a consumer that falls further behind receives one `.gap`
/// event naming the commits it missed, never silence. It ends when the iterating task is cancelled
/// or the store closes. Iterate it once, from one task: when that iteration ends (the loop exits, or the
/// iterator is released), the sequence ends too and its listener is removed.
///
/// For example:
///
/// ```swift
/// for await event in store.changes(filter: .table("nodes")) {
///     if case .commit(let commit) = event { print(commit.sequence, commit.changes.count) }
/// }
/// ```
public struct StoreEvents: AsyncSequence, Sendable {
    /// Each element is one commit, or a gap.
    public typealias Element = StoreEvent

    let channel: EventChannel

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(iteration: Iteration(channel: channel))
    }

    /// Waits for the next event.
    public struct Iterator: AsyncIteratorProtocol {
        let iteration: Iteration

        /// The next event, or nil once the sequence ended.
        public mutating func next() async -> StoreEvent? {
            await iteration.channel.next()
        }
    }

    /// One iteration of the sequence: ends it when the iterator is released (a `for await` loop that exits).
    final class Iteration: Sendable {
        let channel: EventChannel
        init(channel: EventChannel) { self.channel = channel }
        deinit { channel.finish() }
    }
}

/// The bounded hand-over between a listener (producer, any thread) and one async consumer.
///
/// `@unchecked Sendable`: `buffer`, `waiter`, `isFinished` and `token` are guarded by `lock`.
final class EventChannel: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: EventBuffer
    private var waiter: CheckedContinuation<StoreEvent?, Never>?
    private var isFinished = false
    /// The listener feeding the channel: cancelled when the channel finishes, or released with it.
    private var token: ListenerToken?

    init(capacity: Int) {
        buffer = EventBuffer(capacity: capacity)
    }

    /// Sets the listener that feeds the channel; cancels it at once if the channel already finished.
    func attach(_ token: ListenerToken) {
        let finished = lock.withLock { () -> Bool in
            if !isFinished { self.token = token }
            return isFinished
        }
        if finished { token.cancel() }
    }

    /// Hands `event` to the waiting consumer, or buffers it.
    func push(_ event: StoreEvent) {
        let waiting = lock.withLock { () -> CheckedContinuation<StoreEvent?, Never>? in
            guard !isFinished else { return nil }
            if let waiter {
                self.waiter = nil
                return waiter
            }
            buffer.push(event)
            return nil
        }
        waiting?.resume(returning: event)
    }

    func next() async -> StoreEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = lock.withLock { () -> StoreEvent?? in
                    if let event = buffer.pop() { return .some(event) }
                    if isFinished || Task.isCancelled { return .some(nil) }
                    waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the sequence and removes its listener: the consumer gets what is buffered, then nil.
    func finish() {
        let (waiting, listener) = lock.withLock { () -> (CheckedContinuation<StoreEvent?, Never>?, ListenerToken?) in
            isFinished = true
            defer { (waiter, token) = (nil, nil) }
            return (waiter, token)
        }
        waiting?.resume(returning: nil)
        listener?.cancel()
    }
}
