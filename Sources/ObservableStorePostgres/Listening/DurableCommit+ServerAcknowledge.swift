#if PostgreSQL
import ObservableStoreCore
import StorePostgres

extension PostgresStore {
    /// Acknowledges `delivery` inside the transaction open on `connection`: a compare-and-set of its listener's
    /// cursor, so that the handler's own writes and the acknowledgement commit together, once. Throws
    /// ``/ObservableStoreCore/StoreError/Code/busy`` when the commit is already acknowledged (another consumer took
    /// over the name meanwhile): roll the transaction back.
    package func acknowledge(_ delivery: DurableCommit, on connection: ServerConnection) throws {
        try PostgresDurableCursor.acknowledge(delivery.listenerName, delivery.commit.sequence, on: connection)
        delivery.acknowledged.value = true
    }
}
#endif
#if PostgreSQL
extension DurableCommit {
    /// Moves the listener's cursor past this commit inside `transaction`, so that the handler's own writes and the
    /// acknowledgement commit together (exactly-once effects). It is a compare-and-set: when the commit is already
    /// acknowledged (another consumer took over the name meanwhile) it throws
    /// ``/ObservableStoreCore/StoreError/Code/busy`` and the write rolls back. Without it, the store acknowledges
    /// after the handler returns (at-least-once).
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
    public func acknowledge(in transaction: PostgresTransaction) throws {
        try transaction.checkActive()
        try PostgresDurableCursor.acknowledge(listenerName, commit.sequence, on: transaction.connection)
        acknowledged.value = true
    }
}
#endif
