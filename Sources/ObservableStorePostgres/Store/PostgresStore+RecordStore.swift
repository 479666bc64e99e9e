#if PostgreSQL
import ObservableStoreCore

/// The API both engines share, written once in the core: ``/ObservableStoreCore/RecordStore`` (reads and writes,
/// bind-and-fire, observed values, the live models) and ``/ObservableStoreCore/ListeningStore`` (`listen`,
/// `removeListener`, `listenerNames`, `changes`), with commits of every writer, from this store's own writes and
/// from the change feed.
extension PostgresStore: RecordStore {
    /// The store's listeners (see ``/ObservableStoreCore/ListeningStore/listenerRegistry``).
    public var listenerRegistry: ListenerRegistry { registry }

    /// The store's engine: the store itself (see ``/ObservableStoreCore/RecordStore/engineHandle``).
    public var engineHandle: StoreEngineHandle<PostgresTransaction> { StoreEngineHandle(self) }
}

/// The transaction API both engines share (``/ObservableStoreCore/StoreTransaction``).
extension PostgresTransaction: StoreTransaction {}
#endif
