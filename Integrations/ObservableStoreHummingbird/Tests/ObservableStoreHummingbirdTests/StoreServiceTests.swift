import Foundation
import ObservableStore
import ObservableStoreHummingbird
import Testing

@Suite(.timeLimit(.minutes(3)))
struct StoreServiceTests {
    @Test func opensTheStore() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("svc-\(UUID()).sqlite").path
        let service = try StoreService(path: path)
        #expect(try service.store.lastSequence() == 0)
        service.store.close()
    }
}
