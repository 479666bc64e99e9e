#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

// Writes and reads, with the SQLite `Store`'s names and signatures; the closures get a `PostgresTransaction`.
extension PostgresStore {
    /// A repository of `type`'s table in this store; its commits carry `origin`, if given.
    public func repository<R: Record>(_ type: R.Type, origin: String? = nil) -> PostgresRepository<R> {
        PostgresRepository(store: self, origin: origin)
    }

    /// Runs `body` in one write transaction (READ COMMITTED) on a pooled connection and commits; if `body` throws,
    /// everything it did is rolled back and the error is rethrown.
    ///
    /// Once committed, the commit gets the next store-wide sequence number (in commit order, across every host), and
    /// its row changes reach the listeners of every store on the database. Commits of other writers never wait for
    /// it, nor it for them, beyond PostgreSQL's row locks (docs/POSTGRES.md, "Change capture and the sequence"). `origin` tags the commit (`SET LOCAL
    /// observable_store.origin`), so listeners can filter on it.
    ///
    /// Writes run concurrently, each on its own connection (at most
    /// ``PostgresStoreConfiguration/maximumConnectionCount``); PostgreSQL's row locks order writes to the same rows.
    /// A serialization failure or deadlock (SQLSTATE 40001, 40P01) throws ``/ObservableStoreCore/StoreError/Code/busy``
    /// and is not retried: run the write again. Calling `write` from inside a `write` closure on the same thread throws
    /// ``/ObservableStoreCore/StoreError/Code/transactionMisuse``: use the transaction (or a savepoint) instead.
    @discardableResult
    public func write<T>(origin: String? = nil, _ body: (PostgresTransaction) throws -> T) throws -> T {
        try writeReturningCommit(origin: origin, body).value
    }

    /// Like ``write(origin:_:)``, and also returns the sequence number of the commit the write made (nil when it
    /// changed no row: nothing was logged, and listeners receive nothing).
    ///
    /// ```swift
    /// let written = try store.writeReturningCommit(origin: "canvas") { tx in try tx.insert(node) }
    /// pendingEchoes.insert(written.sequence)   // ignore this commit when its event comes back
    /// ```
    public func writeReturningCommit<T>(origin: String? = nil, _ body: (PostgresTransaction) throws -> T) throws -> CommittedWrite<T> {
        guard !registry.context.isPublishingOnCurrentThread else {
            throw StoreError(.transactionMisuse, "an immediate listener cannot write: it runs inside another write's publication")
        }
        let marker = "ObservableStorePostgres.write.\(UInt(bitPattern: ObjectIdentifier(self).hashValue))"
        let thread = Thread.current.threadDictionary
        guard thread[marker] == nil else {
            throw StoreError(.transactionMisuse, "write called inside a write: use the transaction (or a savepoint) instead")
        }
        thread[marker] = true
        defer { thread.removeObject(forKey: marker) }
        let written = try pool.withConnection { connection in
            // The origin is a session setting, sent only when it differs from the one this connection's last commit
            // left (a rolled-back transaction's change is undone with it): most writes need no statement for it.
            let sessionOrigin = origin ?? ""
            let setsOrigin = connection.sessionOrigin != sessionOrigin
            return try runTransaction(on: connection, begin: "BEGIN", kind: .write) { transaction in
                if setsOrigin {
                    try connection.query("SELECT set_config('observable_store.origin', $1, false)", [.text(sessionOrigin)])
                }
                let value = try body(transaction)
                // On the 0001 scheme the commit row is found by transaction id after COMMIT.
                let transactionID = numbersCommitsAfterCommit
                    ? nil : try connection.query("SELECT pg_current_xact_id_if_assigned()::text").scalar
                return (value, transactionID)
            } afterCommit: { value, transactionID in
                connection.sessionOrigin = sessionOrigin
                // The data is committed: a failed lookup must not make the caller think otherwise (and write again).
                // It may leave the session's note of this commit behind (_store_settle() rolled back), which the
                // connection's next write would take for its own: the connection is not reused.
                do {
                    return CommittedWrite(value: value, sequence: try committedSequence(on: connection, transactionID: transactionID))
                } catch {
                    connection.close()
                    return CommittedWrite(value: value, sequence: nil)
                }
            }
        }
        if let sequence = written.sequence { didCommit(sequence: sequence) }
        return written
    }

    /// Runs `body` in a read transaction: every query in it sees the same snapshot (REPEATABLE READ), and writes are
    /// refused (READ ONLY: ``/ObservableStoreCore/StoreError/Code/readOnly``).
    @discardableResult
    public func read<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try runTransaction(on: connection, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", kind: .read, body) { $0 }
        }
    }

    /// Runs `body`, which must run exactly one statement, on a pooled connection without BEGIN and COMMIT: one
    /// statement is its own snapshot, and this saves two round trips. For the repository's reads.
    func readOneStatement<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try pool.withConnection { connection in
            let transaction = PostgresTransaction(connection: connection, kind: .read, tableColumns: tableColumns)
            defer { transaction.end() }
            return try body(transaction)
        }
    }

    /// The last commit sequence assigned in this store (0 before the first commit).
    public func lastSequence() throws -> Int64 {
        try read { try $0.lastSequence() }
    }

    /// The sequence number of the commit the transaction just committed on `connection`, nil when it logged no
    /// change. Numbering after COMMIT (migration 0002), one statement: `_store_settle()` answers at once when the
    /// commit was numbered at COMMIT (the stamp lock was free), or numbers it after the stamper ahead of it. On a
    /// store still at 0001, the commit row of `transactionID` (read before COMMIT) was stamped at COMMIT.
    private func committedSequence(on connection: ServerConnection, transactionID: DatabaseValue?) throws -> Int64? {
        let sequence: DatabaseValue?
        if numbersCommitsAfterCommit {
            sequence = try connection.query("SELECT _store_settle()").scalar
        } else if case .text(let transactionID)? = transactionID {
            sequence = try connection.query("SELECT seq FROM _store_commits WHERE txid = $1::xid8", [.text(transactionID)]).scalar
        } else {
            sequence = nil
        }
        guard case .integer(let number)? = sequence else { return nil }
        return number
    }

    /// `begin`, `body` with a transaction, COMMIT, then `afterCommit` with what `body` returned; ROLLBACK when
    /// `body` or COMMIT throws, and the error rethrown.
    private func runTransaction<Body, T>(
        on connection: ServerConnection, begin: String, kind: PostgresTransaction.Kind,
        _ body: (PostgresTransaction) throws -> Body, afterCommit: (Body) throws -> T
    ) throws -> T {
        let result = try connection.inTransaction(begin) {
            let transaction = PostgresTransaction(connection: connection, kind: kind, tableColumns: tableColumns)
            defer { transaction.end() }
            return try body(transaction)
        }
        return try afterCommit(result)
    }
}
#endif
