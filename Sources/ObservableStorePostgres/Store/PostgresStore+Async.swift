#if PostgreSQL
import Dispatch
import ObservableStoreCore
import StorePostgres

// The `async` forms of writes and reads whose closure is synchronous, as on SQLite: the caller waits suspended for a
// pooled connection, then the closure runs on a global dispatch queue's thread, which waits for the server's answers.
// Cancelling the task while the call waits for a connection ends it at once with `CancellationError`: the closure
// never runs and nothing is written. Once the call has its connection it runs to the end, whatever the cancellation.
// A closure that awaits the transaction's statements (`try await tx.insert(node)`) takes the forms in
// PostgresStore+Transactions.swift instead, where no thread waits.
extension PostgresStore {
    /// Like ``write(origin:_:)``, with the caller suspended instead of blocking a thread: waiting for a pooled
    /// connection, it ends at once with `CancellationError` when its task is cancelled, and `body` never runs.
    @discardableResult
    public func write<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> T {
        try await writeReturningCommit(origin: origin, body).value
    }

    /// Like ``writeReturningCommit(origin:_:)``, with the caller suspended instead of blocking a thread, cancelled as
    /// the `async` `write(origin:_:)` is.
    public func writeReturningCommit<T: Sendable>(
        origin: String? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> CommittedWrite<T> {
        guard !registry.context.isPublishingOnCurrentThread else {
            throw StoreError(.transactionMisuse, "an immediate listener cannot write: it runs inside another write's publication")
        }
        guard !PostgresStore.writingStores.contains(ObjectIdentifier(self)) else { throw PostgresStore.nestedWrite }
        try Task.checkCancellation()
        let written = try await pool.withConnection { connection in
            try await offThread {
                try self.withNestedWriteCheck { try self.committedWrite(on: connection, origin: origin, body) }
            }
        }
        // Published once the connection is back in the pool (publishing may read the log on a pooled connection),
        // off the caller's thread: immediate listeners run here, and may block.
        if let sequence = written.sequence { try await offThread { self.didCommit(sequence: sequence) } }
        return written
    }

    /// Like ``read(_:)``, with the caller suspended instead of blocking a thread, cancelled as the `async`
    /// `write(origin:_:)` is.
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await pool.withConnection { connection in
            try await offThread { try self.readTransaction(on: connection, body) }
        }
    }

    /// Runs `work` on a global queue's thread and resumes the caller with its result.
    private func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
#endif
