import Hummingbird
import ObservableStoreHummingbird

/// The node board: builds the application serving the board page, its REST API and its event stream.
public enum NodeBoardApplication {
    /// The router of the board's routes on `service`'s store.
    public static func router(service: StoreService) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("healthz") { _, _ in "ok" }
        return router
    }
}
