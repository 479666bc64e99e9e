import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// The change log names the tables whose changes a commit kept, in the order first seen.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct TouchedTablesTests {
    @Test func theLogNamesOnlyTablesWhoseChangesWereKept() throws {
        try withTemporaryStore { store, _ throws in
            try store.write { tx in
                try? tx.savepoint { tx in
                    try tx.insert(UserInfo(id: "dropped", name: "D"))
                    throw CancellationError()
                }
                try tx.insert(NodeVO(name: "kept", x: 0, y: 0))
            }
            #expect(try store.read { try $0.fetchValue("SELECT tables FROM _store_commits") } == .text("nodes"))
        }
    }

    @Test func theLogNamesEveryKeptTableInFirstSeenOrder() throws {
        try withTemporaryStore { store, _ throws in
            try store.write { tx in
                try tx.insert(UserInfo(id: "first", name: "F"))
                try tx.insert(NodeVO(name: "second", x: 0, y: 0))
                try tx.insert(UserInfo(id: "again", name: "A"))
            }
            #expect(try store.read { try $0.fetchValue("SELECT tables FROM _store_commits") } == .text("user_info,nodes"))
        }
    }
}
