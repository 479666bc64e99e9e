import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// `changes()` streams: kept out of the named listeners, and released when their iteration ends.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ChangeStreamTests {
    @Test func streamsAreNotNamedListeners() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes(filter: .table("nodes"))
            let token = store.listen("named") { _ in }
            #expect(store.listenerNames == ["named"])
            #expect(store.unnamedListenerCount == 1)
            // Still a listener: it gets the commits.
            try await store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next()?.sequence == 1)
            // Removing the named listeners leaves the stream alone.
            token.cancel()
            #expect(store.listenerNames.isEmpty)
            #expect(store.unnamedListenerCount == 1)
        }
    }

    @Test func cancellingTheConsumingTaskReleasesTheStream() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes()  // kept alive below, after the task ends
            let started = Locked(0)
            let reader = Task {
                for await _ in events { started.withLock { $0 += 1 } }
            }
            try await store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            try await waitUntil("the reader to receive the commit") { started.value >= 1 }  // iterating
            reader.cancel()
            try await value(of: reader, "the cancelled reader to end")
            try await waitUntil("the stream to be released") { store.unnamedListenerCount == 0 }
            // A commit after that reaches no stream, and iterating again ends at once.
            try await store.write { tx in try tx.insert(NodeVO(name: "b", x: 0, y: 0)) }
            let endsAtOnce = try await withDeadline("a released stream's new iteration to end") {
                var again = events.makeAsyncIterator()
                return await again.next() == nil
            }
            #expect(endsAtOnce)
            withExtendedLifetime(events) {}
        }
    }

    @Test func leavingTheLoopReleasesTheStream() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes()
            try await store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            for await event in events {
                #expect(event.sequence == 1)
                break
            }
            #expect(store.unnamedListenerCount == 0)
            withExtendedLifetime(events) {}
        }
    }

    @Test func releasingTheIteratorReleasesTheStream() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes()
            var iterator: StoreEvents.Iterator? = events.makeAsyncIterator()
            try await store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            #expect(await iterator?.next()?.sequence == 1)
            #expect(store.unnamedListenerCount == 1)
            iterator = nil
            #expect(store.unnamedListenerCount == 0)
            withExtendedLifetime(events) {}
        }
    }

    @Test func releasingAnUnusedSequenceReleasesTheStream() throws {
        try withTemporaryStore { store, _ in
            var events: StoreEvents? = store.changes()
            #expect(store.unnamedListenerCount == 1)
            events = nil
            #expect(events == nil && store.unnamedListenerCount == 0)
        }
    }
}
