#if PostgreSQL
import Dispatch
import Logging
import ObservableStoreCore
import Synchronization

/// Connections to one database, opened when needed (at most ``maximum``) and handed to one caller at a time, in the
/// order callers asked. A caller waits either suspended (`async`: no thread waits, and cancelling the task ends the
/// wait) or blocking its thread (the synchronous API). Hand-over needs no task and no thread of Swift's concurrency
/// pool, so blocking callers on that pool cannot starve it into a deadlock.
///
/// A connection that fails with ``StoreError/Code/unavailable`` or is closed is dropped, not reused.
package final class ServerConnectionPool: Sendable {
    /// The database.
    package let url: PostgresURL
    /// The most connections open at once.
    package let maximum: Int
    /// How long a caller waits for a connection when ``maximum`` are in use before it gets
    /// ``StoreError/Code/busy`` (a read inside a write on every connection at once would otherwise wait for ever).
    package let checkOutTimeout: Duration
    private let logger: Logger
    private let state = Mutex(State())

    /// What a waiting caller is handed: an idle connection, or the right to open one (a slot under ``maximum``).
    private enum Grant: Sendable {
        case connection(ServerConnection)
        case slot
    }

    private struct Waiter: Sendable {
        let id: Int
        let hand: @Sendable (Result<Grant, any Error>) -> Void
    }

    private struct State: Sendable {
        var idle: [ServerConnection] = []
        var openCount = 0
        var isClosed = false
        var waiters: [Waiter] = []
        var nextWaiterID = 0
    }

    /// How many callers wait for a connection now (for tests).
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// A pool for `url`; no connection is opened yet.
    package init(url: PostgresURL, maximum: Int, logger: Logger, checkOutTimeout: Duration = .seconds(30)) {
        self.url = url
        self.checkOutTimeout = checkOutTimeout
        self.maximum = max(1, maximum)
        self.logger = logger
    }

    /// Runs `body` with a connection of the pool, the calling thread waiting for one when ``maximum`` are in use.
    package func withConnection<T>(_ body: (ServerConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        do {
            let value = try body(connection)
            checkIn(connection, after: nil)
            return value
        } catch {
            checkIn(connection, after: error)
            throw error
        }
    }

    /// Runs `body` with a connection of the pool, the caller suspended while it waits for one.
    nonisolated(nonsending) package func withConnection<T>(
        _ body: nonisolated(nonsending) (ServerConnection) async throws -> T
    ) async throws -> T {
        let connection = try await checkOut()
        do {
            let value = try await body(connection)
            checkIn(connection, after: nil)
            return value
        } catch {
            checkIn(connection, after: error)
            throw error
        }
    }

    /// Closes every idle connection and fails every waiting caller; connections in use close when they come back.
    /// Later calls throw.
    package func close() {
        let (closing, waiters) = state.withLock { state -> ([ServerConnection], [Waiter]) in
            state.isClosed = true
            defer {
                state.openCount -= state.idle.count
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters { waiter.hand(.failure(closedError)) }
        for connection in closing { connection.closeSoon() }
    }

    private var closedError: StoreError { StoreError(.transactionMisuse, "the store is closed") }

    private var busyError: StoreError {
        StoreError(.busy, "all \(maximum) connections to \(url) stayed in use for \(checkOutTimeout) (a read inside a write on each?)")
    }

    // MARK: - Checking out

    /// An idle connection, a slot to open one, or a place in the queue of waiting callers.
    private enum Turn {
        case granted(Grant)
        case queued(id: Int)
    }

    /// Takes an idle connection or a free slot now, or queues `hand` (called once, from whoever hands over).
    private func takeTurn(_ hand: @escaping @Sendable (Result<Grant, any Error>) -> Void) throws -> Turn {
        try state.withLock { state in
            if state.isClosed { throw closedError }
            if let connection = state.idle.popLast() { return .granted(.connection(connection)) }
            if state.openCount < maximum {
                state.openCount += 1
                return .granted(.slot)
            }
            let id = state.nextWaiterID
            state.nextWaiterID += 1
            state.waiters.append(Waiter(id: id, hand: hand))
            return .queued(id: id)
        }
    }

    /// Removes waiter `id` from the queue; false when it was already handed something (or failed by ``close()``).
    private func withdraw(_ id: Int) -> Bool {
        state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
            state.waiters.remove(at: index)
            return true
        }
    }

    private func checkOut() throws -> ServerConnection {
        let settled = DispatchSemaphore(value: 0)
        let handed = Mutex<Result<Grant, any Error>?>(nil)
        let turn = try takeTurn { result in
            handed.withLock { $0 = result }
            settled.signal()
        }
        let grant: Grant
        switch turn {
        case .granted(let granted):
            grant = granted
        case .queued(let id):
            if settled.wait(timeout: .now() + checkOutTimeout.timeInterval) == .timedOut {
                if withdraw(id) { throw busyError }
                settled.wait()  // handed over just as the wait ended: the hand-over is under way
            }
            grant = try handed.withLock { $0 }!.get()
        }
        switch grant {
        case .connection(let connection): return connection
        case .slot:
            do {
                return try ServerConnection.connect(url, logger: logger)
            } catch {
                releaseSlot()
                throw error
            }
        }
    }

    nonisolated(nonsending) private func checkOut() async throws -> ServerConnection {
        let waiter = HandOverWaiter<Grant>()
        let turn = try takeTurn { waiter.resume(with: $0) }
        let grant: Grant
        switch turn {
        case .granted(let granted):
            grant = granted
        case .queued(let id):
            grant = try await waiter.wait(timeout: checkOutTimeout) { [self] reason in
                guard withdraw(id) else { return }
                waiter.resume(with: .failure(reason == .timedOut ? busyError : CancellationError()))
            }
        }
        switch grant {
        case .connection(let connection): return connection
        case .slot:
            do {
                return try await ServerConnection.connect(url, logger: logger)
            } catch {
                releaseSlot()
                throw error
            }
        }
    }

    // MARK: - Checking in

    /// Gives `connection` back after `body` ended with `error` (nil: it returned): to the first waiting caller, or to
    /// the idle list; dropped when it is closed or failed with ``StoreError/Code/unavailable``.
    private func checkIn(_ connection: ServerConnection, after error: (any Error)?) {
        let lost = (error as? StoreError)?.code == .unavailable
        let reusable = !lost && !connection.isClosed
        if !reusable {
            connection.closeSoon()
            releaseSlot()
            return
        }
        enum Destination {
            case waiter(Waiter)
            case idle
            case closing
        }
        let destination = state.withLock { state -> Destination in
            if state.isClosed {
                state.openCount -= 1
                return .closing
            }
            if !state.waiters.isEmpty { return .waiter(state.waiters.removeFirst()) }
            state.idle.append(connection)
            return .idle
        }
        switch destination {
        case .waiter(let next): next.hand(.success(.connection(connection)))
        case .closing: connection.closeSoon()
        case .idle: break
        }
    }

    /// A connection was dropped or could not be opened: its slot goes to the first waiting caller, or is freed.
    private func releaseSlot() {
        let next = state.withLock { state -> Waiter? in
            if !state.isClosed, !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.openCount -= 1
            return nil
        }
        next?.hand(.success(.slot))
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch's timeouts.
    var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
#endif
