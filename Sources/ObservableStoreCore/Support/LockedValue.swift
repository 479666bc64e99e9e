import Synchronization

/// A value shared between threads, read and written under a lock.
package final class LockedValue<Value: Sendable>: Sendable {
    private let stored: Mutex<Value>

    /// A box holding `value`.
    package init(_ value: Value) { self.stored = Mutex(value) }

    /// The value now.
    package var value: Value {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }

    /// Stores `newValue` and returns the value it replaced.
    package func exchange(_ newValue: Value) -> Value {
        stored.withLock { value in
            defer { value = newValue }
            return value
        }
    }
}
