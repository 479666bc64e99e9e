import Foundation
import Hummingbird
import HummingbirdTesting
import NodeBoard
import ObservableStore
import ObservableStoreHummingbird
import Testing

@Suite(.timeLimit(.minutes(3)))
struct HealthTests {
    @Test func healthz() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nb-\(UUID()).sqlite").path
        let service = try StoreService(path: path)
        let app = Application(router: NodeBoardApplication.router(service: service))
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        service.store.close()
    }
}
