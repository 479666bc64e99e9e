#if PostgreSQL
import Dispatch
import ObservableStoreCore

// The `async` forms of writes and reads: the caller is suspended while the synchronous form runs on a global
// dispatch queue's thread (which blocks on the server's answers). Unlike the SQLite engine's, they are not queued in
// the store and cancelling the task does not stop them.
extension PostgresStore {
    /// Like ``write(origin:_:)``, with the caller suspended instead of blocking a thread.
    ///
    /// ```swift
    /// let node = try await store.write { tx in try tx.insert(NodeVO(name: "Start", x: 0, y: 0)) }
    /// ```
    @discardableResult
    public func write<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> T {
        try await offThread { try self.write(origin: origin, body) }
    }

    /// Like ``writeReturningCommit(origin:_:)``, with the caller suspended instead of blocking a thread.
    public func writeReturningCommit<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> CommittedWrite<T> {
        try await offThread { try self.writeReturningCommit(origin: origin, body) }
    }

    /// Like ``read(_:)``, with the caller suspended instead of blocking a thread.
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) throws -> T) async throws -> T {
        try await offThread { try self.read(body) }
    }

    /// Runs `work` on a global queue's thread and resumes the caller with its result.
    private func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
#endif
