#if PostgreSQL
import Dispatch
import ObservableStoreCore

// The `async` forms of writes and reads whose closure is synchronous: the caller is suspended while the blocking form
// runs on a global dispatch queue's thread, which waits for the server's answers. A closure that awaits the
// transaction's statements (`try await tx.insert(node)`) takes the forms in PostgresStore+Transactions.swift instead,
// where no thread waits. Unlike the SQLite engine's, neither is queued in the store; cancelling the task ends only an
// awaited form's wait for a pooled connection (these forms run to the end).
extension PostgresStore {
    /// Like ``write(origin:_:)``, with the caller suspended while another thread runs it.
    @discardableResult
    public func write<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> T {
        try await offThread { try self.write(origin: origin, body) }
    }

    /// Like ``writeReturningCommit(origin:_:)``, with the caller suspended while another thread runs it.
    public func writeReturningCommit<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> CommittedWrite<T> {
        try await offThread { try self.writeReturningCommit(origin: origin, body) }
    }

    /// Like ``read(_:)``, with the caller suspended while another thread runs it.
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
