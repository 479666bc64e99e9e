import Foundation

/// The bounded hand-over between a listener (producer, any thread) and one async consumer.
///
/// `@unchecked Sendable`: `buffer`, `waiter`, `isFinished` and `token` are guarded by `lock`.
package final class EventChannel: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: EventBuffer
    private var waiter: CheckedContinuation<StoreEvent?, Never>?
    private var isFinished = false
    /// The listener feeding the channel: cancelled when the channel finishes, or released with it.
    private var token: ListenerToken?

    package init(capacity: Int) {
        buffer = EventBuffer(capacity: capacity)
    }

    /// Sets the listener that feeds the channel; cancels it at once if the channel already finished.
    package func attach(_ token: ListenerToken) {
        let finished = lock.withLock { () -> Bool in
            if !isFinished { self.token = token }
            return isFinished
        }
        if finished { token.cancel() }
    }

    /// Hands `event` to the waiting consumer, or buffers it.
    package func push(_ event: StoreEvent) {
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
    package func finish() {
        let (waiting, listener) = lock.withLock { () -> (CheckedContinuation<StoreEvent?, Never>?, ListenerToken?) in
            isFinished = true
            defer { (waiter, token) = (nil, nil) }
            return (waiter, token)
        }
        waiting?.resume(returning: nil)
        listener?.cancel()
    }
}
