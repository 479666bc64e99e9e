import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Named listeners, filters, delivery, overflow, bind-and-fire and the async sequence.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ListenerTests {
    private func insertNode(_ store: SQLiteStore, _ name: String = "n", origin: String? = nil) throws {
        try store.repository(NodeVO.self, origin: origin).insert(NodeVO(name: name, x: 0, y: 0))
    }

    @Test func queuedListenersReceiveEveryCommitOnceInOrder() throws {
        try withTemporaryStore { store, _ in
            let recorder = EventRecorder()
            let token = store.listen("all") { recorder.record($0) }
            for index in 0..<50 { try insertNode(store, "n\(index)") }
            #expect(recorder.wait(for: 50))
            #expect(recorder.commits.map(\.sequence) == Array(1...50))
            withExtendedLifetime(token) {}
        }
    }

    @Test func ordersAreKeptAcrossManyConcurrentWriters() throws {
        try withTemporaryStore { store, _ in
            let recorder = EventRecorder()
            let token = store.listen("ordered") { recorder.record($0) }
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for index in 0..<50 { try? insertNode(store, "w\(worker)-\(index)") }
            }
            #expect(recorder.wait(for: 200))
            let sequences = recorder.commits.map(\.sequence)
            #expect(sequences == Array(1...200))
            // Each commit's payload is the row written in that commit.
            let ids = recorder.changes.map { $0.key }
            #expect(ids == (1...200).map { [.integer($0)] })
            withExtendedLifetime(token) {}
        }
    }

    @Test func filtersSelectTablesKeysColumnsAndOrigins() throws {
        try withTemporaryStore { store, _ in
            let users = EventRecorder()
            let node2 = EventRecorder()
            let moves = EventRecorder()
            let notCanvas = EventRecorder()
            let onlyCanvas = EventRecorder()
            let tokens = [
                store.listen("users", filter: .table("user_info"), options: ListenerOptions(immediate: true)) { users.record($0) },
                store.listen("node2", filter: ChangeFilter(tables: ["nodes"], keys: [.integer(2)]), options: ListenerOptions(immediate: true)) {
                    node2.record($0)
                },
                store.listen("moves", filter: ChangeFilter(tables: ["nodes"], columns: ["x", "y"]), options: ListenerOptions(immediate: true)) {
                    moves.record($0)
                },
                store.listen("not-canvas", filter: ChangeFilter(excludedOrigins: ["canvas"]), options: ListenerOptions(immediate: true)) {
                    notCanvas.record($0)
                },
                store.listen("only-canvas", filter: ChangeFilter(origins: ["canvas"]), options: ListenerOptions(immediate: true)) {
                    onlyCanvas.record($0)
                },
            ]
            try insertNode(store, "one", origin: "canvas")  // 1
            try insertNode(store, "two")  // 2
            try store.write(origin: "canvas") { try $0.execute("UPDATE nodes SET x = 10 WHERE id = 2") }  // 3
            try store.write { try $0.execute("UPDATE nodes SET color = '#000000' WHERE id = 2") }  // 4
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))  // 5
            #expect(users.commits.map(\.sequence) == [5])
            #expect(node2.commits.map(\.sequence) == [2, 3, 4])
            #expect(moves.commits.map(\.sequence) == [1, 2, 3])  // inserts count; the colour change does not
            #expect(notCanvas.commits.map(\.sequence) == [2, 4, 5])
            #expect(onlyCanvas.commits.map(\.sequence) == [1, 3])
            withExtendedLifetime(tokens) {}
        }
    }

    @Test func aCommitIsFilteredDownToTheMatchingChanges() throws {
        try withTemporaryStore { store, _ in
            let (recorder, token) = store.record("nodes-only", filter: .table("nodes"))
            try store.write { tx in
                try tx.insert(NodeVO(name: "n", x: 0, y: 0))
                try tx.insert(UserInfo(id: "me", name: "Ada"))
            }
            #expect(recorder.changes.map(\.table) == ["nodes"])
            withExtendedLifetime(token) {}
        }
    }

    @Test func typedListenersReceiveDecodedRecords() throws {
        try withTemporaryStore { store, _ in
            let received = Recorder<RecordCommit<NodeVO>>()
            let token = store.listen("typed", to: NodeVO.self, options: ListenerOptions(immediate: true)) { event in
                if case .commit(let commit) = event { received.append(commit) }
            }
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "typed", x: 1, y: 2))
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "not a node"))
            try store.repository(NodeVO.self).delete(node)
            #expect(received.all.count == 2)
            #expect(received.all[0].changes.first?.new == node)
            #expect(received.all[1].changes.first?.operation == .delete)
            #expect(received.all[1].changes.first?.old == node)
            withExtendedLifetime(token) {}
        }
    }

    @Test func registeringANameAgainReplacesTheListener() throws {
        try withTemporaryStore { store, _ in
            let first = EventRecorder()
            let second = EventRecorder()
            let old = store.listen("view", options: ListenerOptions(immediate: true)) { first.record($0) }
            try insertNode(store)
            let new = store.listen("view", options: ListenerOptions(immediate: true)) { second.record($0) }
            #expect(old.isCancelled)
            #expect(store.listenerNames == ["view"])
            try insertNode(store)
            #expect(first.commits.map(\.sequence) == [1])
            #expect(second.commits.map(\.sequence) == [2])
            // Cancelling the replaced listener's token leaves the new one alone.
            old.cancel()
            try insertNode(store)
            #expect(second.commits.map(\.sequence) == [2, 3])
            withExtendedLifetime(new) {}
        }
    }

    @Test func replacementIsAtomicUnderConcurrentDeliveries() throws {
        try withTemporaryStore { store, _ in
            let violations = Recorder<String>()
            let replacedUpTo = Locked(-1)
            let writing = DispatchSemaphore(value: 0)
            var tokens: [ListenerToken] = []
            DispatchQueue.global().async {
                for index in 0..<300 { try? insertNode(store, "n\(index)") }
                writing.signal()
            }
            for generation in 0..<100 {
                tokens.append(
                    store.listen("contended") { _ in
                        // Once generation g+1's registration returned, generation g must stay silent.
                        if replacedUpTo.value > generation { violations.append("generation \(generation) called after replacement") }
                        usleep(100)  // widens the window for a late call, orders nothing
                    })
                replacedUpTo.value = generation
            }
            try writing.waitForSignal("the writer thread's 300 inserts")
            #expect(violations.all.isEmpty, "\(violations.all.prefix(3))")
            #expect(store.listenerNames == ["contended"])
            withExtendedLifetime(tokens) {}
        }
    }

    @Test func removeListenerAndTokensStopDelivery() throws {
        try withTemporaryStore { store, _ in
            let removed = EventRecorder()
            let cancelled = EventRecorder()
            let released = EventRecorder()
            let removedToken = store.listen("removed", options: ListenerOptions(immediate: true)) { removed.record($0) }
            let cancelledToken = store.listen("cancelled", options: ListenerOptions(immediate: true)) { cancelled.record($0) }
            var releasedToken: ListenerToken? = store.listen("released", options: ListenerOptions(immediate: true)) {
                released.record($0)
            }
            try insertNode(store)
            #expect(store.removeListener("removed"))
            #expect(!store.removeListener("never-registered"))
            cancelledToken.cancel()
            releasedToken = nil
            try insertNode(store)
            for recorder in [removed, cancelled, released] { #expect(recorder.commits.map(\.sequence) == [1]) }
            #expect(store.listenerNames.isEmpty)
            #expect(releasedToken == nil)
            withExtendedLifetime(removedToken) {}
        }
    }

    @Test func aListenerNeverKeepsItsOwnerAlive() throws {
        final class View: Sendable {
            let recorder = EventRecorder()
        }
        try withTemporaryStore { store, _ in
            var view: View? = View()
            weak let weakView = view
            let recorder = view!.recorder
            store.listen("owned", owner: view!, options: ListenerOptions(immediate: true)) { view, event in view.recorder.record(event) }
            try insertNode(store)
            #expect(recorder.commits.count == 1)
            view = nil
            #expect(weakView == nil)
            try insertNode(store)  // the listener notices its owner is gone and removes itself
            #expect(recorder.commits.count == 1)
            #expect(store.listenerNames.isEmpty)
        }
    }

    @Test func reRegisteringTheSameNamesDoesNotPileUpListeners() throws {
        final class Sentinel: Sendable {}
        try withTemporaryStore { store, _ in
            let sentinels = Recorder<WeakBox>()
            for _ in 0..<2_000 {
                let sentinel = Sentinel()
                sentinels.append(WeakBox(sentinel))
                for name in ["first-view.name", "second-view.name", "third-view.name"] {
                    store.listen(name, owner: sentinel) { _, _ in }
                }
            }
            #expect(store.listenerNames == ["first-view.name", "second-view.name", "third-view.name"])
            // Every replaced listener, and so every owner, is gone.
            #expect(sentinels.all.allSatisfy { $0.object == nil })
        }
    }

    @Test func aSlowListenerDelaysNoOne() throws {
        try withTemporaryStore { store, _ in
            let slowStarted = DispatchSemaphore(value: 0)
            let slowRelease = DispatchSemaphore(value: 0)
            let slow = EventRecorder()
            let fast = EventRecorder()
            let tokens = [
                store.listen("slow") { event in
                    slowStarted.signal()
                    slowRelease.wait(seconds: helperWaitSeconds)
                    slow.record(event)
                },
                store.listen("fast") { fast.record($0) },
            ]
            try insertNode(store)
            try slowStarted.waitForSignal("the slow handler to start")  // the slow handler is now stuck in its first event
            for index in 0..<20 { try insertNode(store, "more\(index)") }  // writers are not blocked
            #expect(fast.wait(for: 21))
            #expect(slow.all.isEmpty)
            for _ in 0..<21 { slowRelease.signal() }
            #expect(slow.wait(for: 21))
            #expect(slow.commits.map(\.sequence) == Array(1...21))
            withExtendedLifetime(tokens) {}
        }
    }

    @Test func overflowBecomesAGapNamingWhatWasMissed() throws {
        try withTemporaryStore { store, _ in
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let recorder = EventRecorder()
            let token = store.listen("small", options: ListenerOptions(bufferSize: 4)) { event in
                if event.sequence == 1 {
                    started.signal()
                    release.wait(seconds: helperWaitSeconds)
                }
                recorder.record(event)
            }
            try insertNode(store)
            try started.waitForSignal("the handler to start")
            for index in 0..<20 { try insertNode(store, "n\(index)") }  // 2...21: 4 fit, 17 do not
            let offered = DispatchSemaphore(value: 0)
            store.publisher.afterPublished { offered.signal() }
            try offered.waitForSignal("every commit to be offered")  // every commit has been offered to the listener
            release.signal()
            #expect(recorder.wait(for: 6))
            let events = recorder.all
            #expect(events.count == 6)
            #expect(events.prefix(5).map(\.sequence) == [1, 2, 3, 4, 5])
            #expect(events.last == .resync(.missedCommits(6...21)))
            // After the gap, delivery resumes normally.
            try insertNode(store)
            #expect(recorder.wait(for: 7))
            #expect(recorder.all.last?.sequence == 22)
            withExtendedLifetime(token) {}
        }
    }

    @Test func aThrowingHandlerLosesOnlyThatEvent() throws {
        struct Failure: Error {}
        try withTemporaryStore { store, _ in
            let recorder = EventRecorder()
            let token = store.listen("flaky") { event in
                if event.sequence == 2 { throw Failure() }
                recorder.record(event)
            }
            for _ in 0..<3 { try insertNode(store) }
            #expect(recorder.wait(for: 2))
            #expect(recorder.commits.map(\.sequence) == [1, 3])
            withExtendedLifetime(token) {}
        }
    }

    @Test func immediateListenersRunBeforeWriteReturns() throws {
        try withTemporaryStore { store, _ in
            let recorder = EventRecorder()
            let token = store.listen("now", options: ListenerOptions(immediate: true)) { recorder.record($0) }
            try insertNode(store)
            #expect(recorder.all.count == 1)  // no waiting: delivered inside write
            withExtendedLifetime(token) {}
        }
    }

    @Test func bindAndFireDeliversTheCurrentValueThenEveryChange() throws {
        try withTemporaryStore { store, _ in
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))
            let names = Recorder<String?>()
            let records = Recorder<UserInfo?>()
            let nameToken = try store.bindAndFire("first-view.name", UserInfo.self, key: "me", \.name) { names.append($0) }
            let recordToken = try store.bindAndFire("detail-view", UserInfo.self, key: "me") { records.append($0) }
            #expect(names.all == ["Ada"])  // fired before bindAndFire returned
            #expect(records.all.map { $0?.name } == ["Ada"])
            var user = try #require(try store.repository(UserInfo.self).fetch("me"))
            user.hairColor = "red"  // not the name: the name view stays quiet
            try store.repository(UserInfo.self).update(user)
            user.name = "Grace"
            try store.repository(UserInfo.self).update(user)
            try store.repository(UserInfo.self).insert(UserInfo(id: "other", name: "Other"))
            try store.repository(UserInfo.self).delete(user)
            try waitUntil { records.all.count == 4 && names.all.count == 3 }
            #expect(names.all == ["Ada", "Grace", nil])
            #expect(records.all.map { $0?.name } == ["Ada", "Ada", "Grace", nil])
            #expect(records.all[1]?.hairColor == "red")
            withExtendedLifetime((nameToken, recordToken)) {}
        }
    }

    @Test func bindAndFireHasNoGapAndNoDuplicateWhenWritesRace() throws {
        try withTemporaryStore { store, _ in
            try store.repository(NodeVO.self).insert(NodeVO(name: "counter", x: 0, y: 0))
            let finalValue = 400.0
            let writerDone = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                for _ in 0..<Int(finalValue) {
                    _ = try? store.write { try $0.execute("UPDATE nodes SET x = x + 1 WHERE id = 1") }
                }
                writerDone.signal()
            }
            var tokens: [ListenerToken] = []
            var collectors: [Recorder<Double>] = []
            for index in 0..<8 {  // bind repeatedly while the writer runs
                let values = Recorder<Double>()
                collectors.append(values)
                tokens.append(try store.bindAndFire("race-\(index)", NodeVO.self, key: 1) { node in values.append(node?.x ?? -1) })
                usleep(2_000)  // spreads the binds over the writes, orders nothing
            }
            try writerDone.waitForSignal("the writer thread's updates")
            for values in collectors {
                try waitUntil { values.all.last == finalValue }
                let seen = values.all
                // Consecutive values from the first one read: nothing skipped, nothing twice.
                #expect(seen == Array(stride(from: seen[0], through: finalValue, by: 1)))
            }
            withExtendedLifetime(tokens) {}
        }
    }

    @Test func bindAndFireOnAQueryRefetches() throws {
        try withTemporaryStore { store, _ in
            let results = Recorder<[String]>()
            let token = try store.bindAndFire("list-view", query: RecordQuery<NodeVO>().order(by: "name")) { nodes in
                results.append(nodes.map(\.name))
            }
            #expect(results.all == [[]])
            try insertNode(store, "b")
            try waitUntil { results.all.last == ["b"] }
            try insertNode(store, "a")
            try waitUntil { results.all.last == ["a", "b"] }
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "irrelevant"))
            try insertNode(store, "c")
            try waitUntil { results.all.last == ["a", "b", "c"] }
            #expect(results.all.count == 4)  // the user_info commit did not refetch
            withExtendedLifetime(token) {}
        }
    }

    @Test func theAsyncSequenceDeliversCommitsAndEndsOnCancellation() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes(filter: .table("nodes"))
            let reader = Task { () -> [Int64] in
                var sequences: [Int64] = []
                for await event in events {
                    sequences.append(event.sequence ?? -1)
                    if sequences.count == 3 { break }
                }
                return sequences
            }
            for index in 0..<3 { try await store.write { tx in try tx.insert(NodeVO(name: "a\(index)", x: 0, y: 0)) } }
            #expect(try await value(of: reader, "three commits through the sequence") == [1, 2, 3])

            // A loop over a sequence that never ends by itself: cancelling its task must end it.
            let more = store.changes()
            let received = Locked(0)
            let endless = Task {
                for await _ in more { received.withLock { $0 += 1 } }
            }
            try await store.write { tx in try tx.insert(NodeVO(name: "b", x: 0, y: 0)) }
            try await waitUntil("the endless loop to receive a commit") { received.value == 1 }  // it is iterating
            endless.cancel()
            try await value(of: endless, "the cancelled loop to end")
        }
    }

    @Test func closingTheStoreEndsItsSequences() async throws {
        try await withTemporaryStore { store, _ in
            let events = store.changes()
            let received = Locked(0)
            let reader = Task { () -> Int in
                for await _ in events { received.withLock { $0 += 1 } }
                return received.value
            }
            try await store.write { tx in try tx.insert(NodeVO(name: "last", x: 0, y: 0)) }
            try await waitUntil("the reader to receive the commit") { received.value == 1 }
            store.close()
            #expect(try await value(of: reader, "the sequence to end when the store closes") == 1)
        }
    }

    /// An in-memory store reads on its writer: an immediate bound query, which reads again on the writer's
    /// thread during the publication, used to fail with "write called inside a write" at every commit.
    @Test func anImmediateBoundQueryOfAnInMemoryStoreReadsAgainAtEveryCommit() throws {
        let errors = Recorder<String>()
        var configuration = SQLiteStoreConfiguration()
        configuration.listenerErrorHandler = { _, error in errors.append("\(error)") }
        let store = try SQLiteStore(path: ":memory:", configuration: configuration)
        let names = Recorder<[String]>()
        let token = try store.bindAndFire(
            "list", query: RecordQuery<NodeVO>().order(by: "name"), options: ListenerOptions(immediate: true)
        ) { nodes in names.append(nodes.map(\.name)) }
        let nodes = store.repository(NodeVO.self)
        try nodes.insert(NodeVO(name: "b", x: 0, y: 0))
        try nodes.insert(NodeVO(name: "a", x: 1, y: 1))
        // Immediate: each value arrives before the write returns.
        #expect(names.all == [[], ["b"], ["a", "b"]])
        #expect(errors.all.isEmpty)
        // A read inside a write's closure still refuses (it would not see a snapshot of its own).
        let refused = #expect(throws: StoreError.self) { try store.write { _ in try store.read { _ in 0 } } }
        #expect(refused?.code == .transactionMisuse && refused?.message.contains("read called inside another transaction") == true)
        withExtendedLifetime(token) {}
    }

    /// The same direct read must not touch a closed store's connection: an immediate handler that closes an
    /// in-memory store and then reads gets an error, not a freed handle.
    @Test func anImmediateHandlerThatClosedAnInMemoryStoreCannotReadIt() throws {
        let store = try SQLiteStore(path: ":memory:")
        let outcomes = Recorder<String>()
        let token = store.listen("closer", options: ListenerOptions(immediate: true)) { _ in
            store.close()
            do {
                _ = try store.read { try $0.fetchValue("SELECT 1") }
                outcomes.append("read")
            } catch let error as StoreError {
                outcomes.append("\(error.code): \(error.message)")
            }
        }
        try store.repository(NodeVO.self).insert(NodeVO(name: "a", x: 0, y: 0))
        #expect(outcomes.all == ["transaction_misuse: the store is closed"])
        withExtendedLifetime(token) {}
    }
}
