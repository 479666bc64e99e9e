import Foundation

/// Collects latencies from any thread and lets the caller wait for a count.
public final class LatencyBox: @unchecked Sendable {
    /// An empty box.
    public init() {}

    // @unchecked: guarded by `condition`.
    private let condition = NSCondition()
    private var values: [Double] = []
    private var events = 0
    /// The count `wait(for:)` waits for: the waiter is woken once, when it is reached, not for every event
    /// (a fan-out's thousands of handlers would otherwise each wake it, and slow each other down on the lock).
    private var target = Int.max

    /// Records one latency (and counts it as an event).
    public func add(_ value: Double) {
        condition.withLock {
            values.append(value)
            events += 1
            if events >= target { condition.broadcast() }
        }
    }

    /// Counts an event without a latency.
    public func count() {
        condition.withLock {
            events += 1
            if events >= target { condition.broadcast() }
        }
    }

    /// Every latency recorded so far.
    public var all: [Double] { condition.withLock { values } }

    /// Waits until `count` events were recorded, at most `timeout` seconds; false if they were not.
    public func wait(for count: Int, timeout: Double = 120) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            target = count
            defer { target = .max }
            while events < count { if !condition.wait(until: deadline) { return events >= count } }
            return true
        }
    }
}
