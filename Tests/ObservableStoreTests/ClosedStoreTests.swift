import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// A closed store ends what is asked of it at once.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ClosedStoreTests {
    @Test func aSequenceAskedForAfterCloseEndsAtOnce() async throws {
        try await withTemporaryStore { store, _ in
            store.close()
            let count = try await withDeadline("a loop over a closed store's changes to end") {
                var count = 0
                for await _ in store.changes() { count += 1 }
                return count
            }
            #expect(count == 0)
        }
    }
}
