import Logging
import Metrics
import ObservableStore
import ServiceLifecycle
import Synchronization

/// A swift-service-lifecycle `Service` that owns a store on either engine (a ``/ObservableStore/RecordStore``): it
/// opens the store when made, or takes one just opened (so migrations run before the server accepts requests), makes
/// the store's event streams, and on graceful shutdown ends those streams, waits for their clients' responses to end,
/// then closes the store.
///
/// Pass it to the `Application` with the router, so that it shuts down after the HTTP server:
///
/// ```swift
/// let service = try StoreService(path: "board.sqlite")   // or StoreService(store: try PostgresStore(url: url))
/// let router = Router()
/// router.addCommitStream("events", try service.commitStream())
/// let app = Application(router: router, services: [service])
/// try await app.runService()
/// ```
///
/// `Application` runs its services in a `ServiceGroup` after the ones it is given, and a group shuts its services
/// down in reverse order: on SIGTERM the HTTP server goes first (the stream's responses end on graceful shutdown,
/// so the running handlers finish), and this service last, which ends any stream left and closes the store.
public final class StoreService: Service, Sendable {
    /// The store this service owns.
    public let store: any RecordStore
    private let metricsFactory: (any MetricsFactory)?
    private let logger: Logger
    private let streams = Mutex<[CommitStream]>([])

    /// Opens (or creates, and migrates) the SQLite store at `path`.
    ///
    /// - Parameters:
    ///   - metricsFactory: where the streams' metrics go; nil (the default) for the factory swift-metrics was
    ///     bootstrapped with. The library never bootstraps one.
    ///   - logger: the logger of the service and its streams.
    public convenience init(
        path: String, configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration(), metricsFactory: (any MetricsFactory)? = nil,
        logger: Logger = Logger(label: "ObservableStoreHummingbird")
    ) throws {
        self.init(store: try SQLiteStore(path: path, configuration: configuration), metricsFactory: metricsFactory, logger: logger)
    }

    /// Owns `store`, on either engine (a `PostgresStore` with the PostgreSQL trait): the service closes it at
    /// shutdown. The parameters are those of ``init(path:configuration:metricsFactory:logger:)``.
    public init(
        store: any RecordStore, metricsFactory: (any MetricsFactory)? = nil, logger: Logger = Logger(label: "ObservableStoreHummingbird")
    ) {
        self.store = store
        self.metricsFactory = metricsFactory
        self.logger = logger
    }

    /// A stream of the store's commits as Server-Sent Events, to serve with
    /// `Router.addCommitStream(_:_:)`. It lives until the service shuts down (or ``CommitStream/finish()``).
    public func commitStream(_ options: CommitStreamOptions = CommitStreamOptions()) throws -> CommitStream {
        let stream = try CommitStream(
            store: store, options: options,
            metrics: CommitStreamMetrics(stream: options.name, factory: metricsFactory ?? MetricsSystem.factory), logger: logger)
        streams.withLock { $0.append(stream) }
        return stream
    }

    /// Waits for graceful shutdown (or cancellation), then ends every stream this service made, waits up to 5 s for
    /// their clients' responses to end, and closes the store.
    public func run() async throws {
        try? await gracefulShutdown()
        let streams = streams.withLock { $0 }
        for stream in streams { stream.finish() }
        for stream in streams where !(await stream.waitForClientsToLeave(timeout: .seconds(5))) {
            logger.warning("commit stream \(stream.options.name): \(stream.clientCount) clients still connected at shutdown")
        }
        store.close()
    }
}
