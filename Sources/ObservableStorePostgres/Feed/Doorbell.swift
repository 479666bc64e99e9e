#if PostgreSQL
import Synchronization

/// What wakes a waiting task early: rung by a notification or a lost connection, and waited for with a time limit.
/// A ring while nobody waits is kept for the next wait (it returns at once).
final class Doorbell: Sendable {
    private struct State {
        var isRung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// A bell nobody has rung.
    init() {}

    /// Wakes the waiting task, or the next one to wait.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.isRung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when the bell rings (or rang since the last wait), after `duration` at most, or when the task is
    /// cancelled. One task waits at a time.
    func wait(upTo duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: duration)
                if !Task.isCancelled { self.ring() }
            }
            await waitForRing()
            group.cancelAll()
        }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let rang = state.withLock { state -> Bool in
                    if state.isRung {
                        state.isRung = false
                        return true
                    }
                    state.waiter = waiter
                    return false
                }
                if rang { waiter.resume() }
            }
        } onCancel: {
            ring()
        }
    }
}
#endif
