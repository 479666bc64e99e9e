import Foundation
import Logging
import ObservableStoreCore
import TestScheduling
import Testing

/// Bind-and-fire and durable listeners through the engine protocol, on an engine that is not SQLite.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ListeningTests {
    @Test func aBoundValueStartsWithTheSnapshotAndSkipsWhatItAlreadyReflects() throws {
        let engine = MemoryEngine()
        engine.commit(["a": 1])
        let values = Received<Int64?>()
        let token = try ValueBinding.bind(
            "a", filter: .all, options: ListenerOptions(immediate: true), engine: engine, registry: engine.registry,
            fetch: { values in values["a"] },
            apply: { commit in
                guard let change = commit.changes.first(where: { $0.key == [.text("a")] }) else { return .skip }
                return .deliver(change.new?["value"].flatMap { if case .integer(let value) = $0 { value } else { nil } })
            },
            deliver: { value, _ in values.append(value) })
        engine.commit(["a": 2])
        engine.commit(["b": 5])  // not about "a": skipped
        engine.commitElsewhere([:], external: true)
        engine.publisher.publishFromLog(engine.reader)  // a resync reads the snapshot again
        #expect(values.all == [1, 2, 2])
        withExtendedLifetime(token) {}
    }

    @Test func aDurableListenerReplaysAfterItsCursorAndMovesIt() throws {
        let engine = MemoryEngine()
        for value in Int64(1)...5 { engine.commit(["a": value]) }
        try engine.advanceCursor(of: "mailer", to: 2)
        let received = Received<Int64>()
        let durable = DurableListener(
            name: "mailer", filter: .all, cursor: 2, engine: engine, context: engine.registry.context,
            logger: .init(label: "test"), errorHandler: nil
        ) { event in
            if case .commit(let delivery) = event { received.append(delivery.commit.sequence) }
        }
        durable.wake()
        #expect(eventually { received.all.count == 3 })
        #expect(received.all == [3, 4, 5])
        #expect(eventually { (try? engine.cursor(of: "mailer", isAtLeast: 5)) == true })
        durable.stop()
    }

    @Test func aDurableListenerBehindRetentionGetsItsCursorExpiredOnce() throws {
        let engine = MemoryEngine()
        for value in Int64(1)...6 { engine.commit(["a": value]) }
        engine.prune(through: 4)
        let received = Received<DurableEvent>()
        let durable = DurableListener(
            name: "late", filter: .all, cursor: 1, engine: engine, context: engine.registry.context,
            logger: .init(label: "test"), errorHandler: nil
        ) { event in received.append(event) }
        durable.wake()
        #expect(eventually { received.all.count == 3 })
        guard case .resync(.cursorExpired(let missed)) = received.all.first else {
            Issue.record("expected the cursor to expire first, got \(received.all)")
            return
        }
        #expect(missed == 2...4)
        #expect(received.all.dropFirst().map { if case .commit(let delivery) = $0 { delivery.commit.sequence } else { -1 } } == [Int64(5), 6])
        #expect(eventually { (try? engine.cursor(of: "late", isAtLeast: 6)) == true })
        durable.stop()
    }

    @Test func aHandlerThatThrowsLeavesItsCommitUnacknowledgedAndGetsItAgain() throws {
        let engine = MemoryEngine()
        engine.commit(["a": 1])
        let attempts = Received<Int64>()
        let durable = DurableListener(
            name: "flaky", filter: .all, cursor: 0, engine: engine, context: engine.registry.context,
            logger: .init(label: "test"), errorHandler: nil
        ) { event in
            guard case .commit(let delivery) = event else { return }
            attempts.append(delivery.commit.sequence)
            if attempts.all.count == 1 { throw CancellationError() }
        }
        durable.wake()
        #expect(eventually { attempts.all.count == 2 })  // retried after 100 ms
        #expect(attempts.all == [1, 1])
        #expect(eventually { (try? engine.cursor(of: "flaky", isAtLeast: 1)) == true })
        durable.stop()
    }
}
