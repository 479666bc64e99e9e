#if PostgreSQL
import Synchronization

/// One `async` caller waiting to be handed a value by whoever has it (another caller giving a connection back, on
/// any thread): resumed exactly once, by the hand-over, by its timeout, or by its task's cancellation.
///
/// The timeout and the cancellation go through `abort`, which resumes the waiter only when it can still withdraw it
/// from whatever queue it stands in (else the hand-over is already on its way, and wins).
final class HandOverWaiter<Value: Sendable>: Sendable {
    /// Why a wait is being ended early.
    enum EndReason: Sendable {
        case timedOut
        case cancelled
    }

    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        /// A result handed over before the caller started waiting.
        var early: Result<Value, any Error>?
        var isResumed = false
    }

    private let state = Mutex(State())

    /// A waiter nobody has handed anything yet.
    init() {}

    /// Ends the wait with `result`; later calls do nothing.
    func resume(with result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard !state.isResumed else { return nil }
            state.isResumed = true
            guard let continuation = state.continuation else {
                state.early = result
                return nil
            }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }

    /// Waits for ``resume(with:)``; after `timeout`, or when the task is cancelled, calls `abort` with the reason
    /// (which resumes the waiter when it can withdraw it).
    func wait(timeout: Duration, abort: @escaping @Sendable (EndReason) -> Void) async throws -> Value {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { abort(.timedOut) }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early = state.withLock { state -> Result<Value, any Error>? in
                    if let early = state.early { return early }
                    state.continuation = continuation
                    return nil
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            abort(.cancelled)
        }
    }
}
#endif
