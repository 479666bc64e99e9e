import Synchronization

/// One `async` call of the store: the caller waits on a continuation, not on a thread, while its body waits in a
/// queue for a thread that can run it.
///
/// Cancellation: a call cancelled before a thread took it resumes at once with `CancellationError`, and its body
/// never runs (the thread that reaches it skips it); once a thread took it, it runs to the end and its outcome is
/// delivered whatever the cancellation.
final class SuspendedCall<Resource, Value: Sendable>: QueuedWork, Sendable {
    private enum Phase {
        /// Queued, or about to be: no thread took it yet.
        case waiting
        /// A thread took it: it runs to the end.
        case running
        /// Its caller was resumed (or, cancelled before suspending, will be at once).
        case ended
    }

    private struct State {
        var phase = Phase.waiting
        /// The suspended caller; nil until it suspends, and once resumed.
        var continuation: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())
    private let body: @Sendable (Resource) throws -> Value

    /// A call of `body`, not queued yet.
    init(_ body: @escaping @Sendable (Resource) throws -> Value) {
        self.body = body
    }

    /// Suspends the calling task until the call ends; `enqueue` hands the call to the threads that run it (it is
    /// not called when the task was cancelled already). Cancelling the task while the call waits resumes it with
    /// `CancellationError`.
    func value(enqueue: (SuspendedCall) -> Void) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let suspended = state.withLock { state in
                    guard state.phase == .waiting else { return false }  // cancelled before it suspended
                    state.continuation = continuation
                    return true
                }
                guard suspended else { return continuation.resume(throwing: CancellationError()) }
                enqueue(self)
            }
        } onCancel: {
            end(ifIn: .waiting, with: .failure(CancellationError()))
        }
    }

    func run(with resource: Resource) {
        let taken = state.withLock { state in
            guard state.phase == .waiting else { return false }
            state.phase = .running
            return true
        }
        guard taken else { return }
        end(ifIn: .running, with: Result { try body(resource) })
    }

    func fail(_ error: any Error) {
        end(ifIn: .waiting, with: .failure(error))
    }

    /// Ends the call with `outcome` if it is in `phase`: resumes the caller, or marks the call ended for a caller
    /// that has not suspended yet.
    private func end(ifIn phase: Phase, with outcome: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>?? in
            guard state.phase == phase else { return .none }
            state.phase = .ended
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        if case .some(.some(let continuation)) = continuation { continuation.resume(with: outcome) }
    }
}
