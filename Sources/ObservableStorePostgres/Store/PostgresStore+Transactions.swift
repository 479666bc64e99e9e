#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

// Writes and reads, with the SQLite `SQLiteStore`'s names and signatures; the closures get a `PostgresTransaction`.
extension PostgresStore {
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
        let written = try withNestedWriteCheck { try pool.withConnection { try committedWrite(on: $0, origin: origin, body) } }
        if let sequence = written.sequence { didCommit(sequence: sequence) }
        return written
    }

    /// Runs `body`, refusing a write of this store inside a write of it on the same thread (it would wait for itself).
    func withNestedWriteCheck<T>(_ body: () throws -> T) throws -> T {
        let marker = "ObservableStorePostgres.write.\(UInt(bitPattern: ObjectIdentifier(self).hashValue))"
        let thread = Thread.current.threadDictionary
        guard thread[marker] == nil, !PostgresStore.writingStores.contains(ObjectIdentifier(self)) else {
            throw PostgresStore.nestedWrite
        }
        thread[marker] = true
        defer { thread.removeObject(forKey: marker) }
        return try body()
    }

    /// Runs `body` in a write transaction on `connection` and commits; the commit's sequence, not yet published.
    func committedWrite<T>(
        on connection: ServerConnection, origin: String?, _ body: (PostgresTransaction) throws -> T
    ) throws -> CommittedWrite<T> {
        // The origin is a session setting, sent only when it differs from the one this connection's last commit
        // left (a rolled-back transaction's change is undone with it): most writes need no statement for it.
        let wantedOrigin = origin ?? ""
        let setsOrigin = connection.sessionOrigin != wantedOrigin
        let (value, transactionID) = try connection.inTransaction("BEGIN") {
            if setsOrigin { try connection.query(PostgresStore.originSetting, [.text(wantedOrigin)]) }
            let value = try withTransaction(on: connection, kind: .write, body)
            // On the 0001 scheme the commit row is found by transaction id after COMMIT.
            return (value, numbersCommitsAfterCommit ? nil : try connection.query(PostgresStore.transactionIDQuery).scalar)
        }
        connection.sessionOrigin = wantedOrigin
        // The data is committed: a failed lookup must not make the caller think otherwise (and write again).
        // It may leave the session's note of this commit behind (_store_settle() rolled back), which the
        // connection's next write would take for its own: the connection is not reused.
        do {
            let lookup = committedSequenceQuery(transactionID: transactionID)
            return CommittedWrite(value: value, sequence: try lookup.map { try connection.query($0.sql, $0.values).scalar?.sequence } ?? nil)
        } catch {
            connection.close()
            return CommittedWrite(value: value, sequence: nil)
        }
    }

    /// Like ``writeReturningCommit(origin:_:)``, with `body` and every statement awaited: no thread waits for the
    /// server (`try await tx.insert(node)` in the closure).
    nonisolated(nonsending) public func writeReturningCommit<T>(
        origin: String? = nil, _ body: nonisolated(nonsending) (PostgresTransaction) async throws -> T
    ) async throws -> CommittedWrite<T> {
        guard !PostgresStore.writingStores.contains(ObjectIdentifier(self)) else { throw PostgresStore.nestedWrite }
        let written = try await pool.withConnection { connection in
            let wantedOrigin = origin ?? ""
            let setsOrigin = connection.sessionOrigin != wantedOrigin
            let (value, transactionID) = try await connection.inTransaction("BEGIN") {
                if setsOrigin { try await connection.query(PostgresStore.originSetting, [.text(wantedOrigin)]) }
                let value = try await PostgresStore.$writingStores.withValue(PostgresStore.writingStores.union([ObjectIdentifier(self)])) {
                    try await withTransaction(on: connection, kind: .write, body)
                }
                return (value, numbersCommitsAfterCommit ? nil : try await connection.query(PostgresStore.transactionIDQuery).scalar)
            }
            connection.sessionOrigin = wantedOrigin
            var sequence: Int64?
            do {
                if let lookup = committedSequenceQuery(transactionID: transactionID) {
                    sequence = try await connection.query(lookup.sql, lookup.values).scalar?.sequence
                }
            } catch {
                connection.closeSoon()
                return CommittedWrite(value: value, sequence: nil)
            }
            // Published while the write still holds its connection: the log is read on it.
            if let sequence { await didCommit(sequence: sequence, readingOn: connection) }
            return CommittedWrite(value: value, sequence: sequence)
        }
        return written
    }

    /// Like ``write(origin:_:)``, with `body` and every statement awaited: no thread waits for the server.
    ///
    /// ```swift
    /// let node = try await store.write { tx in try await tx.insert(NodeVO(name: "Start", x: 0, y: 0)) }
    /// ```
    @discardableResult
    nonisolated(nonsending) public func write<T>(
        origin: String? = nil, _ body: nonisolated(nonsending) (PostgresTransaction) async throws -> T
    ) async throws -> T {
        try await writeReturningCommit(origin: origin, body).value
    }

    /// Like ``read(_:)``, with `body` and every statement awaited: no thread waits for the server.
    @discardableResult
    nonisolated(nonsending) public func read<T>(_ body: nonisolated(nonsending) (PostgresTransaction) async throws -> T) async throws -> T {
        try await pool.withConnection { connection in
            try await connection.inTransaction(PostgresStore.readBegin) {
                try await withTransaction(on: connection, kind: .read, body)
            }
        }
    }

    /// The stores whose `async` write closure the current task is running (a write inside it would wait for itself).
    @TaskLocal static var writingStores: Set<ObjectIdentifier> = []

    static var nestedWrite: StoreError {
        StoreError(.transactionMisuse, "write called inside a write: use the transaction (or a savepoint) instead")
    }

    /// Sets the session's origin (`observable_store.origin`), which the capture triggers log with each commit.
    private static let originSetting = "SELECT set_config('observable_store.origin', $1, false)"
    /// The open transaction's id (0001 scheme: its commit row is found by it after COMMIT).
    private static let transactionIDQuery = "SELECT pg_current_xact_id_if_assigned()::text"
    /// How read transactions begin: one snapshot, no writes.
    private static let readBegin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Runs `body` in a read transaction: every query in it sees the same snapshot (REPEATABLE READ), and writes are
    /// refused (READ ONLY: ``/ObservableStoreCore/StoreError/Code/readOnly``).
    @discardableResult
    public func read<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try pool.withConnection { try readTransaction(on: $0, body) }
    }

    /// Runs `body` in a read transaction on `connection`.
    func readTransaction<T>(on connection: ServerConnection, _ body: (PostgresTransaction) throws -> T) throws -> T {
        try connection.inTransaction(PostgresStore.readBegin) { try withTransaction(on: connection, kind: .read, body) }
    }

    /// Runs `body`, which must run exactly one statement, on a pooled connection without BEGIN and COMMIT: one
    /// statement is its own snapshot, and this saves two round trips. For the repository's reads.
    package func readOneStatement<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
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

    /// The statement that returns the sequence number of the commit the transaction just committed on a connection
    /// (NULL when it logged no change), nil when nothing was logged. Numbering after COMMIT (migration 0002):
    /// `_store_settle()` answers at once when the commit was numbered at COMMIT (the stamp lock was free), or numbers
    /// it after the stamper ahead of it. On a store still at 0001, the commit row of `transactionID` (read before
    /// COMMIT) was stamped at COMMIT.
    private func committedSequenceQuery(transactionID: DatabaseValue?) -> (sql: String, values: [DatabaseValue])? {
        if numbersCommitsAfterCommit { return ("SELECT _store_settle()", []) }
        guard case .text(let transactionID)? = transactionID else { return nil }
        return ("SELECT seq FROM _store_commits WHERE txid = $1::xid8", [.text(transactionID)])
    }

    /// Runs `body` with a transaction on `connection`, ended when `body` returns.
    private func withTransaction<T>(
        on connection: ServerConnection, kind: PostgresTransaction.Kind, _ body: (PostgresTransaction) throws -> T
    ) throws -> T {
        let transaction = PostgresTransaction(connection: connection, kind: kind, tableColumns: tableColumns)
        defer { transaction.end() }
        return try body(transaction)
    }

    /// Runs `body` with a transaction on `connection`, ended when `body` returns, awaited.
    nonisolated(nonsending) private func withTransaction<T>(
        on connection: ServerConnection, kind: PostgresTransaction.Kind,
        _ body: nonisolated(nonsending) (PostgresTransaction) async throws -> T
    ) async throws -> T {
        let transaction = PostgresTransaction(connection: connection, kind: kind, tableColumns: tableColumns)
        defer { transaction.end() }
        return try await body(transaction)
    }
}

extension DatabaseValue {
    /// The integer, when this is one: a commit's sequence number.
    fileprivate var sequence: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }
}
#endif
