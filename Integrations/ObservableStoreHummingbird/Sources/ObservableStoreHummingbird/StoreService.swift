import Logging
import ObservableStore
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that owns a ``/ObservableStore/Store``: it opens the store when made (so
/// migrations run before the server accepts requests) and closes it on graceful shutdown.
public final class StoreService: Service, Sendable {
    /// The store this service owns.
    public let store: Store

    /// Opens (or creates) the store at `path`.
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration()) throws {
        store = try Store(path: path, configuration: configuration)
    }

    /// Waits for graceful shutdown, then closes the store.
    public func run() async throws {
        try? await gracefulShutdown()
        store.close()
    }
}
