import Foundation
import ObservableStoreCore
import Synchronization
import TestScheduling
import Testing

/// The core's publication, on an engine that is not SQLite: every commit once, in sequence order, whoever
/// found it; what the log no longer holds as one resync; markers as external changes.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct CommitPublisherTests {
    private func listen(_ engine: MemoryEngine, immediate: Bool = false) -> (Received<StoreEvent>, ListenerToken) {
        let received = Received<StoreEvent>()
        let listener = engine.registry.makeListener(
            "recorder", filter: .all, options: ListenerOptions(immediate: immediate)
        ) { event in
            received.append(event)
            return true
        }
        return (received, engine.registry.register(listener))
    }

    private func sequences(_ events: [StoreEvent]) -> [Int64] {
        events.compactMap { if case .commit(let commit) = $0 { commit.sequence } else { nil } }
    }

    @Test func anOwnCommitAfterOthersCommitsPublishesThemFirstInOrder() {
        let engine = MemoryEngine()
        let (received, token) = listen(engine, immediate: true)
        engine.commit(["a": 1])
        engine.commitElsewhere(["b": 2])
        engine.commitElsewhere(["c": 3])
        engine.commit(["d": 4])
        #expect(sequences(received.all) == [1, 2, 3, 4])
        withExtendedLifetime(token) {}
    }

    @Test func theFeedAndTheWriterPublishEachCommitOnce() {
        let engine = MemoryEngine()
        let (received, token) = listen(engine)
        engine.commit(["a": 1])
        engine.commitElsewhere(["b": 2])
        engine.publisher.publishFromLog(engine.reader)
        engine.publisher.publishFromLog(engine.reader, newest: 2)  // already published: not read again
        engine.commit(["c": 3])
        engine.publisher.publishFromLog(engine.reader)
        #expect(eventually { received.all.count == 3 })
        #expect(sequences(received.all) == [1, 2, 3])
        withExtendedLifetime(token) {}
    }

    @Test func commitsTheLogNoLongerHoldsBecomeOneResync() {
        let engine = MemoryEngine()
        let (received, token) = listen(engine, immediate: true)
        engine.commit(["a": 1])
        engine.commitElsewhere(["b": 2])
        engine.commitElsewhere(["c": 3])
        engine.prune(through: 3)
        engine.commit(["d": 4])
        #expect(received.all.count == 3)
        #expect(received.all.dropFirst().first == .resync(.missedCommits(2...3)))
        #expect(sequences(received.all) == [1, 4])
        withExtendedLifetime(token) {}
    }

    @Test func aMarkerReachesEveryListenerAsAnExternalChange() {
        let engine = MemoryEngine()
        let (received, token) = listen(engine, immediate: true)
        let other = engine.registry.makeListener("other-table", filter: .table("elsewhere"), options: ListenerOptions(immediate: true)) {
            event in
            received.append(event)
            return true
        }
        let otherToken = engine.registry.register(other)
        engine.commitElsewhere([:], external: true)
        engine.publisher.publishFromLog(engine.reader)
        #expect(received.all == [.resync(.externalChange), .resync(.externalChange)])
        withExtendedLifetime((token, otherToken)) {}
    }

    @Test func withNobodyListeningCommitsAreNotDecoded() {
        let engine = MemoryEngine()
        engine.commit(["a": 1])
        engine.commitElsewhere(["b": 2])
        engine.commit(["c": 3])
        #expect(engine.decodings.count.load(ordering: .relaxed) == 0)
        let (received, token) = listen(engine, immediate: true)
        engine.commit(["d": 4])
        #expect(sequences(received.all) == [4])  // history is not replayed to a new listener
        withExtendedLifetime(token) {}
    }

    @Test func aHandlerReturningFalseRemovesItsListenerAndAReplacedOneStops() {
        let engine = MemoryEngine()
        let calls = Received<String>()
        let once = engine.registry.makeListener("once", filter: .all, options: ListenerOptions(immediate: true)) { _ in
            calls.append("once")
            return false
        }
        let onceToken = engine.registry.register(once)
        let first = engine.registry.makeListener("named", filter: .all, options: ListenerOptions(immediate: true)) { _ in
            calls.append("first")
            return true
        }
        let firstToken = engine.registry.register(first)
        let second = engine.registry.makeListener("named", filter: .all, options: ListenerOptions(immediate: true)) { _ in
            calls.append("second")
            return true
        }
        let secondToken = engine.registry.register(second)
        engine.commit(["a": 1])
        engine.commit(["b": 2])
        #expect(calls.all.sorted() == ["once", "second", "second"])
        #expect(engine.registry.names == ["named"])
        #expect(firstToken.isCancelled && onceToken.isCancelled && !secondToken.isCancelled)
    }
}
