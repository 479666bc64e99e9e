/// Owns a listener's lifetime: `cancel()` it, or let it go, and delivery stops.
///
/// The exception is the token of `SQLiteStore.listen(_:owner:filter:options:handler:)`: there the owner
/// controls the lifetime, and releasing the token leaves the listener alone; `cancel()` still removes it.
///
/// For example:
///
/// ```swift
/// final class DetailView {
///     var token: ListenerToken?
///     func show(_ store: SQLiteStore) {
///         token = store.listen("detail-view", to: NodeVO.self) { event in /* … */ }
///     }   // releasing the view releases the token, which removes the listener
/// }
/// ```
public final class ListenerToken: Sendable {
    private let listener: Listener
    private let registry: ListenerRegistry
    private let cancelsOnRelease: Bool

    package init(listener: Listener, registry: ListenerRegistry, cancelsOnRelease: Bool = true) {
        self.listener = listener
        self.registry = registry
        self.cancelsOnRelease = cancelsOnRelease
    }

    deinit {
        if cancelsOnRelease { cancel() }
    }

    /// The listener's name.
    public var name: String { listener.name }

    /// Whether delivery has stopped (cancelled, released, removed by name, or replaced by a listener of the same name).
    public var isCancelled: Bool { listener.cancelled }

    /// Stops delivery. If a listener of the same name replaced this one, that listener is left alone.
    /// When this returns, the handler is not running (unless this is called from it) and never runs again.
    public func cancel() {
        registry.remove(listener)
    }
}
