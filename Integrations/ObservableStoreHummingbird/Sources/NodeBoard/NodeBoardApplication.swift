import Hummingbird
import Logging
import ObservableStoreHummingbird
import Prometheus

/// The node board: the application serving the board page, its REST API and its event stream, built the same way
/// for the binary and for tests.
///
/// For example:
///
/// ```swift
/// let service = try StoreService(path: "board.sqlite")
/// let app = try NodeBoardApplication.make(service: service, token: nil, host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
public enum NodeBoardApplication {
    /// The router of the board's routes on `service`'s store: the page, the REST API, `/events` (every commit, as
    /// `streamOptions` say), `/healthz`, and `/metrics` when a `metrics` registry is given. When `token` is set (and
    /// not empty), writes need `Authorization: Bearer <token>`.
    public static func router(
        service: StoreService, token: String? = nil, metrics: PrometheusCollectorRegistry? = nil,
        streamOptions: CommitStreamOptions = CommitStreamOptions()
    ) throws -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(ErrorLoggingMiddleware())
        router.get("healthz") { _, _ in "ok" }
        if let metrics { router.addMetrics("metrics", registry: metrics) }
        router.addCommitStream("events", try service.commitStream(streamOptions))
        PageRoutes().add(to: router)
        // Middlewares wrap the routes added after them: the token guards the API's writes.
        if let token, !token.isEmpty {
            router.middlewares.add(BearerTokenMiddleware(token: token))
        }
        NodeRoutes(store: service.store).add(to: router)
        UserRoutes(store: service.store).add(to: router)
        return router
    }

    /// The application: the router, listening on `host`:`port` (0 picks a free port), with `service` run beside
    /// the server (it ends the event streams and closes the store after the server stopped). `onServerRunning` gets
    /// the port listened on.
    public static func make(
        service: StoreService, token: String?, host: String, port: Int, metrics: PrometheusCollectorRegistry? = nil,
        logger: Logger? = nil, onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) throws -> Application<RouterResponder<BasicRequestContext>> {
        Application(
            router: try router(service: service, token: token, metrics: metrics),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "node-board"),
            services: [service],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
