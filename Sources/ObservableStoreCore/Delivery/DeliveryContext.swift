import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the listeners of one store share for delivery: the warm ``DeliveryThread``, and whether the
/// current thread may wait for a handler to finish (``mayWaitForHandlers``).
///
/// Waiting for a handler deadlocks when that handler may be waiting for the current thread. The engine
/// says when that is so on its side (the SQLite engine: inside a write, whose end an immediate handler
/// may be waiting for); the core adds its own case, a thread that is publishing commits
/// (``CommitPublisher``).
package final class DeliveryContext: Sendable {
    /// Runs listeners' drains when free; listeners fall back to the global queue.
    package let thread: DeliveryThread
    private let engineAllowsWaiting: @Sendable () -> Bool
    /// The thread publishing commits right now, if any.
    private let publishingThread = Mutex<pthread_t?>(nil)

    /// A context whose delivery thread looks for work for `spinWindow` after each delivery;
    /// `engineAllowsWaiting` returns false on a thread that must not wait for handlers.
    package init(spinWindow: Duration, engineAllowsWaiting: @escaping @Sendable () -> Bool = { true }) {
        self.thread = DeliveryThread(spinWindow: spinWindow)
        self.engineAllowsWaiting = engineAllowsWaiting
    }

    /// A store that was never closed (its opening failed after creating this) still ends its thread.
    deinit {
        thread.stop()
    }

    /// Whether the current thread may block until handlers finish.
    package var mayWaitForHandlers: Bool {
        engineAllowsWaiting() && !isPublishingOnCurrentThread
    }

    /// Whether the current thread is publishing (delivering to immediate listeners); a write from there
    /// would wait for the publication it is part of.
    package var isPublishingOnCurrentThread: Bool {
        let current = pthread_self()
        return publishingThread.withLock { thread in thread.map { pthread_equal($0, current) != 0 } ?? false }
    }

    /// Runs `body` marked as the publishing thread.
    package func publishing<T>(_ body: () throws -> T) rethrows -> T {
        let current = pthread_self()
        publishingThread.withLock { $0 = current }
        defer { publishingThread.withLock { $0 = nil } }
        return try body()
    }
}
