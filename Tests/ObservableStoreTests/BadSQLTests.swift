import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// SQL that does not compile is the caller's input error.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct BadSQLTests {
    @Test func badSQLIsAnInputError() throws {
        try withTemporaryStore { store, _ throws in
            let error = #expect(throws: StoreError.self) { try store.read { try $0.fetchRows("SELECT * FROM nowhere") } }
            #expect(error?.code == .invalidInput)
        }
    }
}
