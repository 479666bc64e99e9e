#if PostgreSQL
import ObservableStoreCore

extension PostgresStore {
    /// Called after a write committed with `sequence`, on the writing thread. Delivery (the change feed) replaces this.
    func didCommit(sequence: Int64) {}
}
#endif
