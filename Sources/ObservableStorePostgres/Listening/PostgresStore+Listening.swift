#if PostgreSQL
import ObservableStoreCore

/// The listening API of ``/ObservableStoreCore/ListeningStore``, the same as the SQLite engine's (written once in the
/// core): commits of every writer, from this store's own writes and from the change feed.
extension PostgresStore: ListeningStore {
    /// The store's listeners (see ``/ObservableStoreCore/ListeningStore/listenerRegistry``).
    public var listenerRegistry: ListenerRegistry { registry }
}
#endif
