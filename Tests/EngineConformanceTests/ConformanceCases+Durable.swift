import Foundation
import ObservableStoreCore
import StoreTestSupport
import Testing

extension ConformanceCases {
    /// A durable listener resumes after close and reopen from where it left off: the commits made while it was not
    /// registered are delivered once, in order, then live ones; its cursor and lag are listed.
    static func durableListenerResumesAfterReopen<E: ConformanceEngine>(_ engine: E) throws {
        let received = Recorder<Int64>()
        let handler: @Sendable (DurableEvent) throws -> Void = { event in
            if case .commit(let delivery) = event { received.append(delivery.commit.sequence) }
        }
        let first = try withStore(engine) { store -> [Int64] in
            let token = try store.listenDurably("mailer", filter: .table("nodes"), startingAt: .now, handler: handler)
            defer { token.cancel() }
            let start = try store.lastSequence()
            try insertNodes(store, ["a", "b", "c"])
            try waitUntil("three durable deliveries") { received.count >= 3 }
            #expect(received.all == [start + 1, start + 2, start + 3])
            try waitUntil("the cursor at the third commit") {
                try store.durableListeners().first { $0.name == "mailer" }?.cursor == start + 3
            }
            return received.all
        }
        let missed = try withStore(engine) { store -> [Int64] in
            let before = try store.lastSequence()
            try insertNodes(store, ["d", "e"])
            #expect(try store.durableListeners().first { $0.name == "mailer" }?.lag == 2)
            return [before + 1, before + 2]
        }
        try withStore(engine) { store in
            let token = try store.listenDurably("mailer", filter: .table("nodes"), startingAt: .now, handler: handler)
            defer { token.cancel() }
            try waitUntil("the two missed commits") { received.count >= 5 }
            let live = try insertNodes(store, ["f"])
            #expect(live.count == 1)
            try waitUntil("the live commit") { received.count >= 6 }
            usleep(100_000)  // room for a wrong redelivery
            let last = try store.lastSequence()
            #expect(received.all == first + missed + [last])
            #expect(try store.deleteDurableListener("mailer"))
            #expect(try store.durableListeners().isEmpty)
            #expect(try !store.deleteDurableListener("mailer"))
        }
    }

    /// A handler that acknowledges inside its own write gets exactly-once effects: after close and reopen, no commit
    /// is delivered again and each one's effect (a row) exists once. `resetDurableListener` replays from a sequence.
    static func durableAcknowledgementInsideTheHandlersWrite<E: ConformanceEngine>(_ engine: E) throws {
        let deliveries = Recorder<Int64>()
        let secondAcknowledgements = Recorder<StoreError.Code?>()
        func listen(_ store: E.Store) throws -> ListenerToken {
            try store.listenDurably("outbox", filter: .table("nodes"), startingAt: .beginning) { event in
                guard case .commit(let delivery) = event else { return }
                deliveries.append(delivery.commit.sequence)
                try store.write(origin: "outbox") { tx in
                    _ = try tx.upsert(UserInfo(id: "effect-\(delivery.commit.sequence)", name: "sent"))
                    try engine.acknowledge(delivery, in: tx)
                }
                // The same commit acknowledged again (as a consumer that lost the name would): a compare-and-set on
                // both engines, refused with `busy`, and its write rolls back.
                do {
                    try store.write(origin: "outbox") { tx in
                        _ = try tx.upsert(UserInfo(id: "duplicate-\(delivery.commit.sequence)", name: "sent twice"))
                        try engine.acknowledge(delivery, in: tx)
                    }
                    secondAcknowledgements.append(nil)
                } catch let error as StoreError {
                    secondAcknowledgements.append(error.code)
                }
            }
        }
        let sequences = try withStore(engine) { store -> [Int64] in
            let token = try listen(store)
            defer { token.cancel() }
            let sequences = try insertNodesReturningSequences(store, ["a", "b", "c"])
            try waitUntil("three deliveries") { deliveries.count >= 3 }
            try waitUntil("three effects") { try store.read { try $0.count(RecordQuery<UserInfo>()) } == 3 }
            try waitUntil("three second acknowledgements") { secondAcknowledgements.count >= 3 }
            return sequences
        }
        #expect(deliveries.all == sequences)
        #expect(secondAcknowledgements.all == [.busy, .busy, .busy])
        try withStore(engine) { store in
            let token = try listen(store)
            defer { token.cancel() }
            let fourth = try insertNodesReturningSequences(store, ["d"])
            try waitUntil("the new commit") { deliveries.count >= 4 }
            #expect(deliveries.all == sequences + fourth)
            usleep(100_000)  // room for a wrong redelivery
            #expect(deliveries.all.count == 4)
            #expect(try store.read { try $0.count(RecordQuery<UserInfo>()) } == 4)
            // Replay: back to before the second commit, at the next registration.
            token.cancel()
            try store.resetDurableListener("outbox", to: sequences[0])
            let again = try listen(store)
            defer { again.cancel() }
            try waitUntil("the replayed commits") { deliveries.count >= 7 }
            #expect(Array(deliveries.all.suffix(3)) == Array(sequences.suffix(2)) + fourth)
            #expect(try store.read { try $0.count(RecordQuery<UserInfo>()) } == 4)  // upserts: the effects exist once
            let missing = #expect(throws: StoreError.self) { try store.resetDurableListener("nobody", to: 0) }
            #expect(missing?.code == .notFound)
        }
    }
}
