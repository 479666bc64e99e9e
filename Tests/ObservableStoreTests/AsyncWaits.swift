import Foundation
import StoreTestSupport
import Testing

// The waits of the async tests: they poll with `Task.sleep`, so that they never block the thread their test's tasks
// run on.

/// Polls `condition` every millisecond, at most `polls` times; throws ``TimedOut`` naming `what` when it still does
/// not hold. Counted in polls rather than wall-clock time, so that a loaded machine, on which a poll runs late, does
/// not shorten the wait. The suite's time limit still ends a test that never progresses.
func eventually(
    _ what: String, polls: Int = 20_000, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    var left = polls
    while !condition() {
        left -= 1
        guard left > 0 else { throw TimedOut(what, seconds: Double(polls) / 1_000, sourceLocation: sourceLocation) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// `task`'s value, waited for with ``eventually(_:polls:sourceLocation:_:)``; the task is cancelled if it does not end.
func result<Value: Sendable>(
    of task: Task<Value, Never>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Value {
    let value = Locked<Value?>(nil)
    let watcher = Task { value.value = await task.value }
    do {
        try await eventually(what, sourceLocation: sourceLocation) { value.value != nil }
    } catch {
        task.cancel()
        watcher.cancel()
        throw error
    }
    return value.value!
}

/// Waits for `job` without blocking the test's thread (its tasks run there too); its value. Throws ``TimedOut``
/// naming `what` after the default wait.
func finished<Value: Sendable>(_ job: ThreadJob<Value>, _ what: String) async throws -> Value {
    try await eventually(what) { job.wait(seconds: 0) != nil }
    return job.wait(seconds: 0)!
}
