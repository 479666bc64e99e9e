import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif
import StoreSQLite

/// Read-only connections handed out one caller at a time, opened lazily up to `maximum`.
///
/// `@unchecked Sendable`: `idle`, `inUse` and `isClosed` are guarded by `lock`. A `Connection`
/// is used by exactly one caller between `take()` and `give(_:)`, so never by two threads at once.
final class ReaderPool: @unchecked Sendable {
    let maximum: Int
    private let lock = NSLock()
    private let slots: DispatchSemaphore
    private var idle: [Connection] = []
    /// The connections lent out, by the thread using them.
    private var inUse: [(thread: pthread_t, connection: Connection)] = []
    private var isClosed = false
    private let open: @Sendable () throws -> Connection

    init(maximum: Int, open: @escaping @Sendable () throws -> Connection) {
        self.maximum = maximum
        self.slots = DispatchSemaphore(value: max(maximum, 0))
        self.open = open
    }

    /// Runs `body` with a reader connection, waiting while all `maximum` are in use. A nested call on
    /// the same thread reuses the connection the outer call holds (it would otherwise wait for itself).
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        let thread = pthread_self()
        if let held = lock.withLock({ inUse.first { pthread_equal($0.thread, thread) != 0 }?.connection }) {
            return try body(held)
        }
        slots.wait()
        defer { slots.signal() }
        let connection = try take(for: thread)
        defer { give(connection) }
        return try body(connection)
    }

    /// An idle connection, or a new one, lent to `thread`: one turn of the lock when one is idle (a fetch by
    /// key takes a reader for a few microseconds, so each turn counts).
    private func take(for thread: pthread_t) throws -> Connection {
        let reused: Connection? = try lock.withLock {
            guard !isClosed else { throw StoreError(.transactionMisuse, "the store is closed") }
            guard let connection = idle.popLast() else { return nil }
            inUse.append((thread, connection))
            return connection
        }
        if let reused { return reused }
        let opened = try open()
        lock.withLock { inUse.append((thread, opened)) }
        return opened
    }

    /// Takes `connection` back from its thread: idle again, or closed when the pool is.
    private func give(_ connection: Connection) {
        let keep = lock.withLock {
            if let index = inUse.firstIndex(where: { $0.connection === connection }) { inUse.remove(at: index) }
            guard !isClosed else { return false }
            idle.append(connection)
            return true
        }
        if !keep { connection.close() }
    }

    /// Closes the idle connections; connections in use close when given back.
    func close() {
        let connections = lock.withLock {
            isClosed = true
            defer { idle.removeAll() }
            return idle
        }
        for connection in connections { connection.close() }
    }
}
