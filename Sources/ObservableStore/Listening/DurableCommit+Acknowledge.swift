import ObservableStoreCore

extension DurableCommit {
    /// Moves the listener's cursor past this commit inside `transaction`, so that the handler's own
    /// writes and the acknowledgement commit together (exactly-once effects). Without it, the store
    /// acknowledges after the handler returns (at-least-once). For a piece of a commit logged in pieces
    /// (``/ObservableStoreCore/Commit/piece``), it acknowledges that piece: a restart resumes with the next one.
    ///
    /// It is a compare-and-set, as on PostgreSQL: when the commit is already acknowledged (another process consumed
    /// the same name meanwhile, or the listener was deleted) it throws ``/ObservableStoreCore/StoreError/Code/busy``,
    /// and the write rolls back, so that its effects are not made twice.
    ///
    /// For example:
    ///
    /// ```swift
    /// try store.listenDurably("mailer", filter: .table("user_info")) { event in
    ///     guard case .commit(let delivery) = event else { return }
    ///     try store.write { tx in
    ///         try tx.execute("INSERT INTO outbox (seq) VALUES (?)", [delivery.commit.sequence])
    ///         try delivery.acknowledge(in: tx)
    ///     }
    /// }
    /// ```
    public func acknowledge(in transaction: SQLiteTransaction) throws {
        try DurableCursor.acknowledge(listenerName, past: commit.piece, of: commit.sequence, in: transaction)
        acknowledged.value = true
    }
}
