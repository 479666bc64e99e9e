import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Code that calls the store from inside the store (a read inside a read, a token released inside a write while
/// a handler waits to write) goes on instead of waiting for itself.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct SelfDeadlockTests {
    @Test func nestedReadsReuseTheThreadsReaderInsteadOfWaitingForThemselves() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.maximumReaderCount = 1
        try withTemporaryStore(configuration: configuration) { store, _ throws in
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            let counts = try finishing("reads nested in a read of a store with one reader") {
                Result {
                    try store.read { tx -> (Int, Int) in
                        let inner = try store.repository(NodeVO.self).count()  // would wait forever for the one reader
                        let nested = try store.read { try $0.count(RecordQuery<NodeVO>()) }
                        return (try tx.count(RecordQuery<NodeVO>()), inner + nested - 1)
                    }
                }
            }
            let (outer, inner) = try counts.get()
            #expect(outer == 1)
            #expect(inner == 1)
        }
    }

    @Test func releasingATokenInsideAWriteDoesNotWaitForAHandlerThatWrites() throws {
        try withTemporaryStore { store, _ throws in
            let entered = DispatchSemaphore(value: 0)
            let writing = DispatchSemaphore(value: 0)
            let handled = Recorder<Int64>()
            let token = Locked<ListenerToken?>(nil)
            token.value = store.listen("writes-back", filter: .table("nodes")) { event in
                entered.signal()
                writing.wait(seconds: helperWaitSeconds)
                // Reacting by writing: waits for the writer, which is busy in the write below.
                try store.write { try $0.execute("INSERT INTO user_info (id, name) VALUES (?, 'x')", ["\(event.sequence ?? 0)"]) }
                handled.append(event.sequence ?? 0)
            }
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            try entered.waitForSignal("the handler to start")
            try finishing("a write that releases the token while the handler waits to write") {
                Result {
                    try store.write { _ in
                        writing.signal()  // the handler's write now waits for this one
                        token.value = nil  // cancels inside a write: must not wait for the handler (a deadlock)
                    }
                }
            }.get()
            try waitUntil("the handler's write") { handled.all.count == 1 }
            #expect(token.value == nil)
        }
    }
}
