import Dispatch
import Foundation
import ObservableStoreCore
import StoreSQLite
import Synchronization

/// The writer, and the lock that makes its users take turns.
///
/// `@unchecked Sendable`: the wrapped ``Writer`` and its `Connection` are not thread-safe (the connection is
/// opened in SQLite's multi-thread mode). They are touched only while `lock` is held, so two threads never
/// use them at once.
///
/// A synchronous write runs on the caller's thread. When the writer is free and no write is waiting, it just
/// takes the lock (a `DispatchQueue.sync` cost ~2,600 instructions per write, ~4% of a one-row commit);
/// otherwise it waits its turn on `queue`, a serial queue, behind the writes already waiting there, so a
/// thread that writes in a loop cannot keep the lock from the others. Asynchronous writes always go through
/// `queue`, their callers suspended on a continuation (``SuspendedCall``) rather than holding a thread. `sync`
/// refuses to run inside a write of this writer (a nested write would deadlock) and after `close()`.
final class SerializedWriter: @unchecked Sendable {
    private let queue: DispatchQueue
    /// Set on `queue`: a store released by its last async write closes on the queue's thread.
    private let queueKey = DispatchSpecificKey<Bool>()
    private let writer: Writer
    /// Held while the writer is used: by a write, a checkpoint, `close()`.
    private let lock = NSLock()
    /// The writes waiting on `queue` for their turn; while there are any, a synchronous write joins them.
    private let waiting = Atomic<Int>(0)
    /// The thread holding `lock` (`pthread_self()`), 0 when none. Only that thread stores its own id, so a
    /// thread that reads its own id is inside a write of this writer.
    private let owner = Atomic<UInt>(0)
    private var isClosed = false  // only read and written with `lock` held
    /// Set when `close()` starts: the writes still waiting for their turn then fail instead of running.
    private let isClosing = Atomic<Bool>(false)

    /// Told when a write starts and ends, so that the change feed does not wake for each of this
    /// process's own file writes (the write's WAL appends, then the checkpoint's writes to the database).
    private let activity: WriteActivity?

    init(_ writer: Writer, label: String, activity: WriteActivity? = nil) {
        self.writer = writer
        self.activity = activity
        self.queue = DispatchQueue(label: label)
        queue.setSpecific(key: queueKey, value: true)
    }

    /// Marks the threads inside a write of any store (a non-nil value).
    private static let insideWriteKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// Whether the caller runs inside a write of some store. Code there must not wait for a listener's
    /// handler: the handler may be waiting for this writer.
    static var isInsideAnyWrite: Bool { pthread_getspecific(insideWriteKey) != nil }

    /// Whether `close()` was called (for tests).
    var hasStartedClosing: Bool { isClosing.load(ordering: .relaxed) }

    /// How many writes wait on the queue for their turn (for tests).
    var waitingWrites: Int { waiting.load(ordering: .relaxed) }

    /// Whether the caller runs inside a write of this writer.
    private var isInsideWrite: Bool { owner.load(ordering: .relaxed) == ThreadIdentity.current }

    /// Runs `body` with the writer and waits for it. `countsAsWrite: false` keeps the change feed from
    /// taking it for a write of this process (the feed's own checks, which must not wake it again).
    func sync<T>(countsAsWrite: Bool = true, _ body: (Writer) throws -> T) throws -> T {
        guard !isInsideWrite else {
            throw StoreError(
                .transactionMisuse,
                "write called inside a write: use the transaction you were given, or a savepoint")
        }
        if waiting.load(ordering: .relaxed) == 0, lock.try() {
            defer { lock.unlock() }
            return try run(countsAsWrite: countsAsWrite, body)
        }
        return try inTurn { try run(countsAsWrite: countsAsWrite, body) }
    }

    /// Runs `body` with the writer for a read on its connection (an in-memory store has no readers): at once
    /// when the caller already holds the writer outside a transaction (an immediate listener reading again
    /// during a publication, after COMMIT), else in turn like ``sync(countsAsWrite:_:)``. Refuses a read
    /// from inside a write's transaction (it would see that write's uncommitted rows, not a snapshot).
    func read<T>(_ body: (Writer) throws -> T) throws -> T {
        if isInsideWrite {
            // This thread holds `lock`: `isClosed` may be read.
            guard !isClosed else { throw StoreError(.transactionMisuse, "the store is closed") }
            guard !writer.connection.isInTransaction else {
                throw StoreError(
                    .transactionMisuse,
                    "read called inside another transaction of an in-memory store (it reads on the writer): use the "
                        + "transaction you were given")
            }
            return try body(writer)
        }
        return try sync(body)
    }

    /// Runs `body` with `lock` held once the writes already waiting on `queue` have had their turn.
    private func inTurn<T>(_ body: () throws -> T) rethrows -> T {
        waiting.add(1, ordering: .relaxed)
        return try queue.sync { try takingTurn(body) }
    }

    /// On `queue`, for a write counted in `waiting`: runs `body` with `lock` held, no longer waiting.
    private func takingTurn<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        waiting.subtract(1, ordering: .relaxed)
        defer { lock.unlock() }
        return try body()
    }

    /// Runs `body` with the writer on the queue's thread; the caller is suspended meanwhile, holding no thread
    /// (the queue runs on one Dispatch worker thread at a time, however many callers wait). A call cancelled
    /// before its turn came throws `CancellationError` without running; once its turn came it runs to the end.
    /// Throws the closed error when the store is closed, or starts closing before the call's turn.
    /// `countsAsWrite: false` for a read of an in-memory store (see ``sync(countsAsWrite:_:)``).
    func async<T: Sendable>(
        countsAsWrite: Bool = true, _ body: @escaping @Sendable (Writer) throws -> T
    ) async throws -> T {
        try await SuspendedCall(body).value { call in
            waiting.add(1, ordering: .relaxed)
            queue.async {
                self.takingTurn {
                    // The caller resumes before the checkpoint: it does not wait for it.
                    do {
                        try self.run(countsAsWrite: countsAsWrite) { writer in call.run(with: writer) }
                    } catch {
                        call.fail(error)
                    }
                }
            }
        }
    }

    /// Runs `work` (with `lock` held) as this process's write, then the checkpoint if one is due; the
    /// change feed is told when the write starts and when both have ended. Throws if the store is closed.
    private func run<T>(countsAsWrite: Bool = true, _ work: (Writer) throws -> T) throws -> T {
        guard !isClosed, !isClosing.load(ordering: .relaxed) else {
            throw StoreError(.transactionMisuse, "the store is closed")
        }
        let activity = countsAsWrite ? self.activity : nil
        return try insideWrite {
            activity?.started()
            defer {
                writer.checkpointIfDue()
                activity?.ended()
            }
            return try work(writer)
        }
    }

    /// Runs `body` marked as inside a write of this writer (``isInsideWrite``) and of any (``isInsideAnyWrite``).
    private func insideWrite<T>(_ body: () throws -> T) rethrows -> T {
        owner.store(ThreadIdentity.current, ordering: .relaxed)
        let outer = pthread_getspecific(SerializedWriter.insideWriteKey)
        pthread_setspecific(SerializedWriter.insideWriteKey, UnsafeRawPointer(bitPattern: 1))
        defer {
            pthread_setspecific(SerializedWriter.insideWriteKey, outer)
            owner.store(0, ordering: .relaxed)
        }
        return try body()
    }

    /// Closes the connection after the write in progress; the writes waiting for their turn (asynchronous ones
    /// queued, synchronous ones blocked) throw the closed error without running, and so do later ones.
    /// Called inside a write, it closes at once; called on the queue outside a write
    /// (the store's last reference was an async write's closure, released there), it only waits for the
    /// lock: waiting for the queue it runs on would never end.
    func close() {
        isClosing.store(true, ordering: .relaxed)
        let work = {
            guard !self.isClosed else { return }
            self.isClosed = true
            self.writer.connection.close()
        }
        if isInsideWrite { return work() }
        if DispatchQueue.getSpecific(key: queueKey) == true { return lock.withLock(work) }
        inTurn(work)
    }
}
