import Hummingbird
import Logging
import ObservableStoreHummingbird

/// The node board: the application serving the board page, its REST API and its event stream, built the same way
/// for the binary and for tests.
///
/// For example:
///
/// ```swift
/// let service = try StoreService(path: "board.sqlite")
/// let app = NodeBoardApplication.make(service: service, token: nil, host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
public enum NodeBoardApplication {
    /// The router of the board's routes on `service`'s store; when `token` is set (and not empty), writes need
    /// `Authorization: Bearer <token>`.
    public static func router(service: StoreService, token: String? = nil) -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(ErrorLoggingMiddleware())
        router.get("healthz") { _, _ in "ok" }
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
    /// the server (it closes the store after the server stopped). `onServerRunning` gets the port listened on.
    public static func make(
        service: StoreService, token: String?, host: String, port: Int, logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<BasicRequestContext>> {
        Application(
            router: router(service: service, token: token),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "node-board"),
            services: [service],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
