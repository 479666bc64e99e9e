import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// A migration history that no release could have written is a conflict, not a crash.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct MigrationHistoryConflictTests {
    @Test func historyRowsWithImpossibleVersionsAreAConflictNotACrash() throws {
        try withTemporaryStore { store, path throws in
            try store.write { try $0.execute("INSERT INTO _store_migrations VALUES ('store', 0, 'zero', 'x', '2030-01-01T00:00:00.000Z', 1, 'x')") }
            store.close()
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
            #expect(error?.code == .migrationConflict)
        }
    }
}
