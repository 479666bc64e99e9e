import Synchronization

/// The hand-over between an observed read (producer, any thread) and one async consumer: it holds only the
/// latest value not yet taken (values coalesce under bursts), and it accepts a value only when it is newer
/// (by commit sequence) than every value offered before, and differs from the value the consumer would otherwise
/// see next: the one waiting to be taken, or else the one it took last. A waiting value that changes back to the one
/// the consumer took is dropped. So a consumer never goes back in time, never gets the same sequence twice, never
/// gets an unchanged value again, and the last value it takes after writes stop is the last one read.
package final class LatestValueChannel<Value: Sendable>: Sendable {
    private struct State {
        /// The last value the consumer took.
        var taken: Observed<Value>?
        /// The value waiting to be taken, if any.
        var pending: Observed<Value>?
        /// The newest sequence offered so far: an offer at or below it is old.
        var newestSequence: Int64?
        var waiter: CheckedContinuation<Observed<Value>?, any Error>?
        var failure: (any Error)?
        var isFinished = false
        /// The listener feeding the channel: cancelled when the channel finishes, or released with it.
        var token: ListenerToken?
    }

    private let state = Mutex(State())
    private let isSame: @Sendable (Value, Value) -> Bool

    /// A channel that tells values apart with `isSame`.
    package init(isSame: @escaping @Sendable (Value, Value) -> Bool) {
        self.isSame = isSame
    }

    /// Sets the listener that feeds the channel; cancels it at once if the channel already finished.
    package func attach(_ token: ListenerToken) {
        let finished = state.withLock { state -> Bool in
            if !state.isFinished { state.token = token }
            return state.isFinished
        }
        if finished { token.cancel() }
    }

    /// Offers `value`, read at `sequence`: handed to the waiting consumer, or kept as the latest; dropped when
    /// not newer than an earlier offer, or the same as the value the consumer would see next. A value equal to the one
    /// the consumer took drops the one waiting: the consumer already has it.
    package func offer(_ value: Value, sequence: Int64) {
        let waiting = state.withLock { state -> (CheckedContinuation<Observed<Value>?, any Error>, Observed<Value>)? in
            guard !state.isFinished else { return nil }
            if let newest = state.newestSequence, sequence <= newest { return nil }
            state.newestSequence = sequence
            if let pending = state.pending, isSame(pending.value, value) { return nil }
            if let taken = state.taken, isSame(taken.value, value) {
                state.pending = nil
                return nil
            }
            let observed = Observed(value: value, sequence: sequence)
            guard let waiter = state.waiter else {
                state.pending = observed
                return nil
            }
            state.waiter = nil
            state.taken = observed
            return (waiter, observed)
        }
        if let (waiter, observed) = waiting { waiter.resume(returning: observed) }
    }

    /// Ends the sequence with `error` (a read that failed): the consumer gets what is pending, then the error.
    package func fail(_ error: any Error) {
        let (waiting, listener) = state.withLock { state -> (CheckedContinuation<Observed<Value>?, any Error>?, ListenerToken?) in
            guard !state.isFinished else { return (nil, nil) }
            state.isFinished = true
            // A waiting consumer gets the error now; a later one after what is pending, once.
            if state.waiter == nil { state.failure = error }
            defer { (state.waiter, state.token) = (nil, nil) }
            return (state.waiter, state.token)
        }
        waiting?.resume(throwing: error)
        listener?.cancel()
    }

    /// The next value, waiting for one; nil once the channel finished (or the waiting task is cancelled).
    func next() async throws -> Observed<Value>? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Observed<Value>?, any Error>? in
                    if let pending = state.pending {
                        (state.taken, state.pending) = (pending, nil)
                        return .success(pending)
                    }
                    if let failure = state.failure {
                        state.failure = nil
                        return .failure(failure)
                    }
                    if state.isFinished || Task.isCancelled { return .success(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the sequence and removes its listener: the consumer gets what is pending, then nil.
    package func finish() {
        let (waiting, listener) = state.withLock { state -> (CheckedContinuation<Observed<Value>?, any Error>?, ListenerToken?) in
            state.isFinished = true
            defer { (state.waiter, state.token) = (nil, nil) }
            return (state.waiter, state.token)
        }
        waiting?.resume(returning: nil)
        listener?.cancel()
    }
}
