import ObservableStoreCore

/// The listening API of ``/ObservableStoreCore/ListeningStore``: `listen`, `removeListener`, `listenerNames` and
/// `changes`, written once in the core for both engines.
extension Store: ListeningStore {
    /// The store's listeners (see ``/ObservableStoreCore/ListeningStore/listenerRegistry``).
    public var listenerRegistry: ListenerRegistry { registry }
}
