import Foundation
import Testing

// Every wait in the tests ends: a test that breaks fails with a message instead of hanging CI. The test's
// own waits throw ``TimedOut``; waits on helper threads (a handler held until the test releases it) give up
// a little later and record nothing, so that a failing test still closes its store.

/// How long a test waits for something that normally takes milliseconds, in seconds.
public let defaultWaitSeconds: Double = 20

/// How long a helper thread (a handler or write held until the test releases it) waits, in seconds: longer
/// than the test's own waits, so that the test reports first.
public let helperWaitSeconds: Double = 40

/// Thrown by a test's wait that ran out of time: the test ends there, reported as failed.
public struct TimedOut: Error, CustomStringConvertible {
    /// What did not happen.
    public var what: String
    /// How long the test waited for it, in seconds.
    public var seconds: Double
    /// The wait in the test's source.
    public var sourceLocation: SourceLocation

    /// A wait for `what` that gave up after `seconds`.
    public init(_ what: String, seconds: Double, sourceLocation: SourceLocation) {
        self.what = what
        self.seconds = seconds
        self.sourceLocation = sourceLocation
    }

    public var description: String {
        "timed out after \(seconds) s waiting for \(what) (\(sourceLocation.fileName):\(sourceLocation.line))"
    }
}

/// Polls `condition` every millisecond until it holds; throws ``TimedOut`` after `timeout` seconds.
public func waitUntil(
    timeout: Double = defaultWaitSeconds, _ what: @autoclosure () -> String = "the condition",
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TimedOut(what(), seconds: timeout, sourceLocation: sourceLocation) }
        usleep(1_000)
    }
}

/// Async twin of ``waitUntil(timeout:_:sourceLocation:_:)``: sleeps between polls instead of blocking a thread.
/// It runs on the caller's actor (`isolation`), so a main-actor test can poll main-actor state.
public func waitUntil(
    timeout: Double = defaultWaitSeconds, _ what: @autoclosure () -> String = "the condition",
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TimedOut(what(), seconds: timeout, sourceLocation: sourceLocation) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

extension DispatchSemaphore {
    /// The test waits for a signal; throws ``TimedOut`` naming `what` when none came within `timeout` seconds.
    public func waitForSignal(
        _ what: @autoclosure () -> String = "a signal", timeout: Double = defaultWaitSeconds,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        if wait(timeout: .now() + timeout) == .timedOut {
            throw TimedOut(what(), seconds: timeout, sourceLocation: sourceLocation)
        }
    }

    /// A helper thread waits for a signal, at most `seconds` (default ``helperWaitSeconds``); whether one came.
    /// Records nothing: the test's own wait reports.
    @discardableResult
    public func wait(seconds: Double = helperWaitSeconds) -> Bool {
        wait(timeout: .now() + seconds) == .success
    }
}

/// Runs `body` on a thread of its own, so that blocking work never waits for a busy shared pool, and
/// lets the test wait for its result with a timeout.
public final class ThreadJob<Value: Sendable>: Sendable {
    private let result = Locked<[Value]>([])

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () -> Value) {
        let result = self.result
        Thread {
            let value = body()  // outside the lock: a waiter must be able to give up meanwhile
            result.withLock { $0 = [value] }
        }.start()
    }

    /// Waits for the job at most `seconds`; its result, or nil if it has not finished by then.
    public func wait(seconds: Double = defaultWaitSeconds) -> Value? {
        guard result.wait(timeout: seconds, until: { !$0.isEmpty }) else { return nil }
        return result.value.first
    }

    /// The test waits for the job; throws ``TimedOut`` naming `what` when it has not finished within `timeout` seconds.
    public func result(
        _ what: @autoclosure () -> String = "a job on another thread", timeout: Double = defaultWaitSeconds,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Value {
        guard let value = wait(seconds: timeout) else {
            throw TimedOut(what(), seconds: timeout, sourceLocation: sourceLocation)
        }
        return value
    }
}

/// Runs `body`, which could block forever if the code under test is broken, on a thread of its own and
/// waits for it; throws ``TimedOut`` naming `what` when it has not returned within `timeout` seconds (the
/// thread stays blocked, the test fails instead of hanging).
public func finishing<Value: Sendable>(
    _ what: @autoclosure () -> String, timeout: Double = defaultWaitSeconds,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () -> Value
) throws -> Value {
    try ThreadJob(body).result(what(), timeout: timeout, sourceLocation: sourceLocation)
}

/// Waits for `task`'s value; throws ``TimedOut`` naming `what` (and cancels the task) when it has not
/// finished within `timeout` seconds. `await task.value` alone would wait forever for a task that never ends.
public func value<Value: Sendable>(
    of task: Task<Value, Never>, _ what: @autoclosure () -> String = "a task",
    timeout: Double = defaultWaitSeconds, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Value {
    let outcome = Locked<Value??>(.none)
    let waiter = Task {
        let value = await task.value
        outcome.withLock { if $0 == nil { $0 = .some(value) } }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while outcome.value == nil, Date() < deadline {
        try await Task.sleep(for: .milliseconds(1))
    }
    guard case .some(.some(let value)) = outcome.value else {
        task.cancel()
        waiter.cancel()
        throw TimedOut(what(), seconds: timeout, sourceLocation: sourceLocation)
    }
    return value
}

extension Tag {
    /// Suites that start child processes (store-fixture, storectl, the sqlite3 shell) many times, or run
    /// for many seconds: slow, and still run by plain `swift test` and in CI.
    @Tag public static var processes: Self
}

/// Runs `operation` in a task of its own and waits for it; throws ``TimedOut`` naming `what` (and cancels the
/// task) when it has not finished within `timeout` seconds. For a loop over a sequence that should end.
public func withDeadline<Value: Sendable>(
    _ what: @autoclosure () -> String, timeout: Double = defaultWaitSeconds,
    sourceLocation: SourceLocation = #_sourceLocation, _ operation: @escaping @Sendable () async -> Value
) async throws -> Value {
    try await value(of: Task { await operation() }, what(), timeout: timeout, sourceLocation: sourceLocation)
}
