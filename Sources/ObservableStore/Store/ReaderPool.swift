import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif
import ObservableStoreCore
import StoreSQLite

/// Read-only connections handed out one caller at a time, opened lazily up to `maximum`.
///
/// `@unchecked Sendable`: `idle`, `inUse`, `freeSlots`, `waiting` and `isClosed` are guarded by `lock`.
/// A `Connection` (not `Sendable`) is used by exactly one caller between ``lend()`` and ``giveBack(_:)``,
/// so never by two threads at once. Not a `Mutex`: ``lend()`` lets go of the lock around its wait on
/// `handOff`, which a `Mutex`'s closure cannot span, and lending is on the path of every read.
final class ReaderPool: @unchecked Sendable {
    /// A connection lent by ``lend()``, to hand back with ``giveBack(_:)``.
    struct Lease {
        let connection: Connection
        /// Whether the calling thread already held `connection` (a read inside a read): giving it back
        /// leaves it with the outer call.
        let isNested: Bool
    }

    let maximum: Int
    private let lock = NSLock()
    /// What a caller waits on when all `maximum` connections are lent out: each signal hands it the
    /// slot of a connection given back.
    private let handOff = DispatchSemaphore(value: 0)
    // Guarded by `lock`, so the runtime's exclusivity checks (two per access) are turned off.
    @exclusivity(unchecked) private var idle: [Connection] = []
    /// The connections lent out, by the thread using them.
    @exclusivity(unchecked) private var inUse: [(thread: pthread_t, connection: Connection)] = []
    /// How many more connections may be lent out now: `maximum` less those lent out or being opened. Not
    /// kept once the pool is closed (every lend throws then).
    private var freeSlots: Int
    /// Callers waiting on `handOff`.
    private var waiting = 0
    /// How many callers wait for a connection now (for tests).
    var waitingCount: Int { lock.withLock { waiting } }
    private var isClosed = false
    private let open: @Sendable () throws -> Connection

    init(maximum: Int, open: @escaping @Sendable () throws -> Connection) {
        self.maximum = maximum
        self.freeSlots = max(maximum, 0)
        self.open = open
    }

    /// Runs `body` with a reader connection, waiting while all `maximum` are in use. A nested call on
    /// the same thread reuses the connection the outer call holds (it would otherwise wait for itself).
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        let lease = try lend()
        defer { giveBack(lease) }
        return try body(lease.connection)
    }

    /// A connection for the calling thread: the one it holds already, an idle one, or a new one, waiting
    /// while all `maximum` are lent out. One turn of the lock when a connection is idle (a fetch by key
    /// holds a reader for a few microseconds, so each turn counts).
    func lend() throws -> Lease {
        let thread = pthread_self()
        lock.lock()
        if let held = inUse.first(where: { pthread_equal($0.thread, thread) != 0 })?.connection {
            lock.unlock()
            return Lease(connection: held, isNested: true)
        }
        guard !isClosed else {
            lock.unlock()
            throw ReaderPool.closedError
        }
        if freeSlots > 0 {
            freeSlots -= 1
        } else {
            waiting += 1
            lock.unlock()
            handOff.wait()  // a connection given back, or the pool closing, passed its slot to this caller
            lock.lock()
            guard !isClosed else {
                lock.unlock()
                throw ReaderPool.closedError
            }
        }
        if let connection = idle.popLast() {
            inUse.append((thread, connection))
            lock.unlock()
            return Lease(connection: connection, isNested: false)
        }
        lock.unlock()
        let opened: Connection
        do {
            opened = try open()
        } catch {
            let wake = lock.withLock { passSlotOn() }
            if wake { handOff.signal() }
            throw error
        }
        let lent = lock.withLock {
            guard !isClosed else { return false }  // closed while this connection opened
            inUse.append((thread, opened))
            return true
        }
        guard lent else {
            opened.close()
            throw ReaderPool.closedError
        }
        return Lease(connection: opened, isNested: false)
    }

    private static var closedError: StoreError { StoreError(.transactionMisuse, "the store is closed") }

    /// Takes back a connection ``lend()`` gave: idle again (closed when the pool is), its slot passed to
    /// a waiting caller or freed. Does nothing for a nested lease.
    func giveBack(_ lease: Lease) {
        guard !lease.isNested else { return }
        let connection = lease.connection
        lock.lock()
        if let index = inUse.firstIndex(where: { $0.connection === connection }) { inUse.remove(at: index) }
        let keep = !isClosed
        if keep { idle.append(connection) }
        let wake = passSlotOn()
        lock.unlock()
        if wake { handOff.signal() }
        if !keep { connection.close() }
    }

    /// Called with `lock` held, by a caller done with a slot: whether to signal `handOff` for a waiting
    /// caller (the slot passes to it), else the slot is free again.
    private func passSlotOn() -> Bool {
        guard waiting == 0 else {
            waiting -= 1
            return true
        }
        freeSlots += 1
        return false
    }

    /// Closes the idle connections and wakes the callers waiting for one (they throw, as every later lend
    /// does); connections in use close when given back.
    func close() {
        let (connections, wake) = lock.withLock {
            isClosed = true
            defer {
                idle.removeAll()
                waiting = 0
            }
            return (idle, waiting)
        }
        for _ in 0..<wake { handOff.signal() }
        for connection in connections { connection.close() }
    }
}
