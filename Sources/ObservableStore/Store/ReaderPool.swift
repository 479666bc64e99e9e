import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif
import ObservableStoreCore
import StoreSQLite

/// Read-only connections handed out one caller at a time, opened lazily up to `maximum`.
///
/// Two kinds of callers share the connections. A synchronous read (``lend()``) takes one on its own thread, and
/// waits there while all `maximum` are lent. An `async` read (``read(_:)``) is queued and its caller suspended:
/// a *drain*, on a Dispatch worker thread, takes a connection and runs the queued reads one after the other,
/// resuming each caller, until the queue is empty. A drain holds one of the `maximum` slots, so at most `maximum`
/// threads read for async callers, however many wait. When both kinds wait, a slot given back goes to them in turn.
///
/// `@unchecked Sendable`: `idle`, `inUse`, `freeSlots`, `waiting`, `queued`, `servedWaiterLast` and `isClosed`
/// are guarded by `lock`. A `Connection` (not `Sendable`) is used by exactly one caller between ``lend()`` and
/// ``giveBack(_:)``, or by one drain, so never by two threads at once. Not a `Mutex`: ``lend()`` lets go of the
/// lock around its wait on `handOff`, which a `Mutex`'s closure cannot span, and lending is on the path of every read.
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
    /// The async reads no drain took yet, oldest first from `queuedHead` (cancelled ones included: a drain skips them).
    private var queued: [any QueuedWork<Connection>] = []
    private var queuedHead = 0
    /// How many async reads are queued now, cancelled ones included (for tests).
    var queuedCount: Int { lock.withLock { queued.count - queuedHead } }
    /// Whether the last slot that both kinds of callers waited for went to a synchronous caller.
    private var servedWaiterLast = false
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
            let next = lock.withLock { passSlotOn() }
            hand(to: next)
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
        let next = keep ? passSlotOn() : .freed
        lock.unlock()
        hand(to: next)
        if !keep { connection.close() }
    }

    /// Where a slot given back goes.
    private enum NextHolder {
        /// A synchronous caller waiting on `handOff`.
        case waiter
        /// The queued async reads: a drain keeps it, or a new one starts with it.
        case queue
        /// Nobody: free again.
        case freed
    }

    /// Called with `lock` held, by a caller done with a slot: passes it to a waiting synchronous caller or to
    /// the queued async reads (in turn, when both wait), else frees it.
    private func passSlotOn() -> NextHolder {
        let hasQueued = queuedHead < queued.count
        if waiting > 0, !hasQueued || !servedWaiterLast {
            waiting -= 1
            servedWaiterLast = true
            return .waiter
        }
        if hasQueued {
            servedWaiterLast = false
            return .queue
        }
        freeSlots += 1
        return .freed
    }

    /// Acts on ``passSlotOn()``'s answer, without `lock`: wakes the waiter, or starts a drain.
    private func hand(to next: NextHolder) {
        switch next {
        case .waiter: handOff.signal()
        case .queue: startDrain()
        case .freed: break
        }
    }

    // MARK: - Async reads

    /// Runs `body` with a connection on a drain's thread; the caller is suspended meanwhile, holding no thread.
    /// A read cancelled before a drain took it throws `CancellationError` without running; one the drain took
    /// runs to the end. Throws the store's closed error when the pool is closed, or closes while it waits.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await SuspendedCall(body).value { call in
            lock.lock()
            guard !isClosed else {
                lock.unlock()
                return call.fail(ReaderPool.closedError)
            }
            queued.append(call)
            let startsDrain = freeSlots > 0  // else every slot is taken: a drain or a giveBack will pass one here
            if startsDrain { freeSlots -= 1 }
            lock.unlock()
            if startsDrain { startDrain() }
        }
    }

    /// Starts a drain, holding a slot taken for it, on a Dispatch worker thread.
    private func startDrain() {
        DispatchQueue.global().async { self.drain() }
    }

    /// Runs the queued reads one after the other on this thread, with one connection, until the queue is empty
    /// or the slot goes to a waiting synchronous caller; then gives the connection and the slot back. The
    /// connection is lent to this thread meanwhile, so that a read inside a queued read shares it.
    private func drain() {
        let thread = pthread_self()
        var connection: Connection?
        var next = NextHolder.queue
        lock.lock()
        while !isClosed {
            if let work = popQueued() {
                if connection == nil, let reused = idle.popLast() {
                    connection = reused
                    inUse.append((thread, reused))
                }
                lock.unlock()
                if connection == nil {
                    do {
                        let opened = try open()
                        connection = opened
                        lock.withLock { inUse.append((thread, opened)) }
                    } catch {
                        work.fail(error)
                    }
                }
                if let connection { work.run(with: connection) }
                lock.lock()
                if isClosed { break }
            }
            next = passSlotOn()
            if next != .queue { break }
        }
        // `lock` is held: the pool closed, or the slot went to a waiting caller or was freed.
        if let connection, let index = inUse.firstIndex(where: { $0.connection === connection }) {
            inUse.remove(at: index)
        }
        let closed = isClosed
        if !closed, let connection { idle.append(connection) }
        lock.unlock()
        if closed {
            connection?.close()
            return
        }
        hand(to: next)
    }

    /// The oldest queued async read, taken off the queue; called with `lock` held.
    private func popQueued() -> (any QueuedWork<Connection>)? {
        guard queuedHead < queued.count else { return nil }
        let work = queued[queuedHead]
        queuedHead += 1
        if queuedHead == queued.count {
            queued.removeAll(keepingCapacity: true)
            queuedHead = 0
        } else if queuedHead >= 1_024, queuedHead * 2 >= queued.count {
            queued.removeFirst(queuedHead)
            queuedHead = 0
        }
        return work
    }

    /// Closes the idle connections, wakes the callers waiting for one and fails the queued async reads (they
    /// throw the closed error, as every later lend and read does); connections in use close when given back,
    /// a drain's when its current read ends.
    func close() {
        let (connections, wake, pending) = lock.withLock {
            isClosed = true
            defer {
                idle.removeAll()
                waiting = 0
                queued.removeAll()
                queuedHead = 0
            }
            return (idle, waiting, queued[queuedHead...])
        }
        for _ in 0..<wake { handOff.signal() }
        for connection in connections { connection.close() }
        for work in pending { work.fail(ReaderPool.closedError) }
    }
}
