import ObservableStoreCore

/// The API both engines share, written once in the core: ``/ObservableStoreCore/RecordStore`` (reads and writes,
/// bind-and-fire, observed values, the live models) and ``/ObservableStoreCore/ListeningStore`` (`listen`,
/// `removeListener`, `listenerNames`, `changes`).
extension SQLiteStore: RecordStore {
    /// The store's listeners (see ``/ObservableStoreCore/ListeningStore/listenerRegistry``).
    public var listenerRegistry: ListenerRegistry { registry }

    /// The store's engine: the store itself (see ``/ObservableStoreCore/RecordStore/engineHandle``).
    public var engineHandle: StoreEngineHandle<SQLiteTransaction> { StoreEngineHandle(self) }
}

/// The transaction API both engines share (``/ObservableStoreCore/StoreTransaction``).
extension SQLiteTransaction: StoreTransaction {}
