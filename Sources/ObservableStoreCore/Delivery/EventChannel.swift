import Synchronization

/// The bounded hand-over between a listener (producer, any thread) and one async consumer.
package final class EventChannel: Sendable {
    private struct State {
        var buffer: EventBuffer
        var waiter: CheckedContinuation<StoreEvent?, Never>?
        var isFinished = false
        /// The listener feeding the channel: cancelled when the channel finishes, or released with it.
        var token: ListenerToken?
    }

    private let state: Mutex<State>

    /// A channel that holds up to `capacity` events (then one resync naming what it missed).
    package init(capacity: Int) {
        state = Mutex(State(buffer: EventBuffer(capacity: capacity)))
    }

    /// Sets the listener that feeds the channel; cancels it at once if the channel already finished.
    package func attach(_ token: ListenerToken) {
        let finished = state.withLock { state -> Bool in
            if !state.isFinished { state.token = token }
            return state.isFinished
        }
        if finished { token.cancel() }
    }

    /// Hands `event` to the waiting consumer, or buffers it.
    package func push(_ event: StoreEvent) {
        let waiting = state.withLock { state -> CheckedContinuation<StoreEvent?, Never>? in
            guard !state.isFinished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.push(event)
            return nil
        }
        waiting?.resume(returning: event)
    }

    /// The next event, waiting for one; nil once the channel finished (or the waiting task is cancelled).
    func next() async -> StoreEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> StoreEvent?? in
                    if let event = state.buffer.pop() { return .some(event) }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
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
        let (waiting, listener) = state.withLock { state -> (CheckedContinuation<StoreEvent?, Never>?, ListenerToken?) in
            state.isFinished = true
            defer { (state.waiter, state.token) = (nil, nil) }
            return (state.waiter, state.token)
        }
        waiting?.resume(returning: nil)
        listener?.cancel()
    }
}
