import Foundation
import StoreTestSupport
import Testing

@testable import ObservableStore

/// `changes()` streams: kept out of the named listeners, and released when their iteration ends.
@Suite struct ChangeStreamTests {
    @Test func streamsAreNotNamedListeners() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes(filter: .table("nodes"))
            let token = store.listen("named") { _ in }
            #expect(store.listenerNames == ["named"])
            #expect(store.observation.streamCount == 1)
            // Still a listener: it gets the commits.
            try await store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next()?.sequence == 1)
            // Removing the named listeners leaves the stream alone.
            token.cancel()
            #expect(store.listenerNames.isEmpty)
            #expect(store.observation.streamCount == 1)
        }
    }

    @Test func cancellingTheConsumingTaskReleasesTheStream() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes()  // kept alive below, after the task ends
            let started = LockedCounter()
            let reader = Task {
                for await _ in events { started.increment() }
            }
            try await store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            #expect(await eventually { started.value >= 0 })  // iterating
            reader.cancel()
            await reader.value
            #expect(await eventually { store.observation.streamCount == 0 })
            // A commit after that reaches no stream, and iterating again ends at once.
            try await store.write { tx in try tx.insert(NodeVO(name: "b", x: 0, y: 0)) }
            var again = events.makeAsyncIterator()
            #expect(await again.next() == nil)
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
            #expect(store.observation.streamCount == 0)
            withExtendedLifetime(events) {}
        }
    }

    @Test func releasingTheIteratorReleasesTheStream() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes()
            var iterator: StoreEvents.Iterator? = events.makeAsyncIterator()
            try await store.write { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)) }
            #expect(await iterator?.next()?.sequence == 1)
            #expect(store.observation.streamCount == 1)
            iterator = nil
            #expect(store.observation.streamCount == 0)
            withExtendedLifetime(events) {}
        }
    }

    @Test func releasingAnUnusedSequenceReleasesTheStream() throws {
        try withTemporaryStore { store, _ in
            var events: StoreEvents? = store.changes()
            #expect(store.observation.streamCount == 1)
            events = nil
            #expect(events == nil && store.observation.streamCount == 0)
        }
    }
}

/// Polls `condition` every millisecond for at most 20 s; returns whether it came to hold.
func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
