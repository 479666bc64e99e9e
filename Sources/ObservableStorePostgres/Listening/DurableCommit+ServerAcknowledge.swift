#if PostgreSQL
import ObservableStoreCore
import StorePostgres

extension PostgresStore {
    /// Acknowledges `delivery` inside the transaction open on `connection`: a compare-and-set of its listener's
    /// cursor, so that the handler's own writes and the acknowledgement commit together, once. Throws
    /// ``/ObservableStoreCore/StoreError/Code/busy`` when the commit is already acknowledged (another consumer took
    /// over the name meanwhile): roll the transaction back.
    package func acknowledge(_ delivery: DurableCommit, on connection: ServerConnection) throws {
        try ServerDurableCursor.acknowledge(delivery.listenerName, delivery.commit.sequence, on: connection)
        delivery.acknowledged.value = true
    }
}
#endif
