import Foundation

/// A value shared between threads: read and changed under a lock, and waited on.
///
/// Every change wakes the threads waiting in ``wait(timeout:until:)``. For example:
///
/// ```swift
/// let count = Locked(0)
/// DispatchQueue.global().async { count.withLock { $0 += 1 } }
/// #expect(count.wait { $0 == 1 })
/// ```
public final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is only read or written while `condition` is locked. An NSCondition rather than a
    // `Mutex`, because waiters must be woken when the value changes.
    private let condition = NSCondition()
    private var stored: Value

    /// A box holding `value`.
    public init(_ value: Value) {
        stored = value
    }

    /// The current value; setting it wakes the waiters.
    public var value: Value {
        get { condition.withLock { stored } }
        set { withLock { $0 = newValue } }
    }

    /// Runs `body` on the value under the lock, then wakes the waiters.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&stored)
    }

    /// Waits until `predicate` holds for the value, at most `timeout` seconds; whether it held.
    ///
    /// Records nothing: the caller asserts on the result (`#expect(box.wait { ... })`).
    public func wait(timeout: Double = defaultWaitSeconds, until predicate: (Value) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while !predicate(stored) {
                if !condition.wait(until: deadline) { return predicate(stored) }
            }
            return true
        }
    }
}

/// A weak reference to an object, for checking that it was released.
public final class WeakBox: @unchecked Sendable {
    // @unchecked: set once at init; reading a weak reference is thread-safe.
    /// The object, while something else keeps it alive.
    public private(set) weak var object: AnyObject?

    /// A weak reference to `object`.
    public init(_ object: AnyObject) {
        self.object = object
    }
}
