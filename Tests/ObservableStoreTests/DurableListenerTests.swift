import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Durable listeners: cursors in the store, replay after restart, acknowledgement, retention.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct DurableListenerTests {
    typealias Received = Recorder<DurableEvent>

    private func insert(_ store: SQLiteStore, _ count: Int, from start: Int = 0) throws {
        for index in start..<(start + count) {
            try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0))
        }
    }

    @Test func aNewListenerStartsNowOrAtTheBeginning() throws {
        try withTemporaryStore { store, _ in
            try insert(store, 3)
            let fromNow = Received()
            let fromStart = Received()
            let tokens = [
                try store.listenDurably("now") { fromNow.append($0) },
                try store.listenDurably("start", startingAt: .beginning) { fromStart.append($0) },
            ]
            try insert(store, 1, from: 3)
            try waitUntil { fromNow.sequences.count == 1 && fromStart.sequences.count == 4 }
            #expect(fromNow.sequences == [4])
            #expect(fromStart.sequences == [1, 2, 3, 4])
            withExtendedLifetime(tokens) {}
        }
    }

    @Test func aThrowingHandlerLeavesTheCommitUnacknowledged() throws {
        struct Flaky: Error {}
        try withTemporaryStore { store, _ in
            let attempts = Locked(-1)
            let received = Received()
            let token = try store.listenDurably("flaky") { event in
                if case .commit(let delivery) = event, delivery.commit.sequence == 2 {
                    attempts.withLock { $0 += 1 }
                    if attempts.value < 3 { throw Flaky() }
                }
                received.append(event)
            }
            try insert(store, 2)
            try waitUntil { received.sequences == [1] && attempts.value >= 1 }
            #expect(try store.durableListeners().first?.cursor == 1)  // 2 was not acknowledged
            // Retried after a pause (no new commit needed), until the handler succeeds.
            try waitUntil { received.sequences == [1, 2] }
            #expect(attempts.value == 3)
            try waitUntil { (try? store.durableListeners().first?.cursor) == 2 }
            withExtendedLifetime(token) {}
        }
    }

    @Test func resetAndDeleteManageCursors() throws {
        try withTemporaryStore { store, _ in
            try insert(store, 4)
            let first = Received()
            var token: ListenerToken? = try store.listenDurably("replay", startingAt: .beginning) { first.append($0) }
            try waitUntil { first.sequences.count == 4 }
            token?.cancel()
            try store.resetDurableListener("replay", to: 2)
            let second = Received()
            token = try store.listenDurably("replay") { second.append($0) }
            try waitUntil { second.sequences.count == 2 }
            #expect(second.sequences == [3, 4])
            #expect(throws: StoreError.self) { try store.resetDurableListener("missing", to: 0) }
            #expect(try store.deleteDurableListener("replay"))
            #expect(try !store.deleteDurableListener("replay"))
            #expect(try store.durableListeners().isEmpty)
            withExtendedLifetime(token) {}
        }
    }

    @Test func retentionKeepsWhatTheSlowestDurableListenerNeeds() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = RetentionPolicy(minimumKeptCommits: 10, minimumKeptAge: nil, hardCapCommits: 40, pruneInterval: 1_000)
        try withTemporaryStore(configuration: configuration) { store, _ in
            let gate = DispatchSemaphore(value: 0)
            let received = Received()
            let token = try store.listenDurably("lagging") { event in
                if case .commit(let delivery) = event, delivery.commit.sequence == 5 { gate.wait(seconds: helperWaitSeconds) }
                received.append(event)
            }
            try insert(store, 30)
            try waitUntil { received.sequences.count == 4 }  // stuck in commit 5; cursor at 4
            #expect(try store.pruneChangeLog() == 4)  // 1...4 go; 5...30 are held for the listener
            #expect(try store.read { try $0.fetchValue("SELECT min(seq) FROM _store_commits") } == .integer(5))
            gate.signal()
            try waitUntil { received.sequences.count == 30 }
            #expect(try store.pruneChangeLog() == 16)  // now only the count limit holds: 21...30 stay
            #expect(try store.read { try $0.fetchValue("SELECT min(seq) FROM _store_commits") } == .integer(21))
            withExtendedLifetime(token) {}
        }
    }

    @Test func aCursorPrunedPastTheHardCapExpiresExplicitly() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = RetentionPolicy(minimumKeptCommits: 5, minimumKeptAge: nil, hardCapCommits: 10, pruneInterval: 1_000)
        try withTemporaryStore(configuration: configuration) { store, _ in
            var token: ListenerToken? = try store.listenDurably("sleeper") { _ in }
            token?.cancel()
            try insert(store, 25)  // the sleeper's cursor stays at 0
            #expect(try store.pruneChangeLog() == 15)  // the hard cap beats the listener: 16...25 stay
            let received = Received()
            token = try store.listenDurably("sleeper") { received.append($0) }
            try waitUntil { received.all.count == 11 }
            guard case .resync(.cursorExpired(let missed)) = received.all.first else {
                Issue.record("expected cursorExpired first, got \(received.all)")
                return
            }
            #expect(missed == 1...15)
            #expect(received.sequences == Array(16...25))
            withExtendedLifetime(token) {}
        }
    }

    @Test func pruningRunsByItselfAndEmitsNoEvents() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = RetentionPolicy(minimumKeptCommits: 3, minimumKeptAge: nil, hardCapCommits: nil, pruneInterval: 5)
        try withTemporaryStore(configuration: configuration) { store, _ in
            let (recorder, token) = store.record()
            try insert(store, 10)
            #expect(recorder.commits.map(\.sequence) == Array(1...10))
            #expect(recorder.all.count == 10)
            let kept = try store.read { try $0.fetchValue("SELECT count(*) FROM _store_commits") }
            #expect(kept == .integer(3))  // pruned after commit 5 (to 3 kept) and after commit 10 (to 3 kept)
            withExtendedLifetime(token) {}
        }
    }

    @Test func writesRolledBackAtCommitDoNotCountTowardsPruning() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = RetentionPolicy(minimumKeptCommits: 1, minimumKeptAge: nil, hardCapCommits: nil, pruneInterval: 4)
        try withTemporaryStore(configuration: configuration) { store, _ in
            let logged = { try store.read { try $0.fetchValue("SELECT count(*) FROM _store_commits") } }
            try store.write { tx in  // commit 1
                try tx.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
                try tx.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)")
            }
            try insert(store, 1)  // commit 2
            // Logged, then refused by COMMIT (the deferred foreign key): rolled back after the log row was written.
            for index in 0..<5 {
                #expect(throws: StoreError.self) {
                    try store.write { try $0.execute("INSERT INTO child (id, parent) VALUES (?, 99)", [index]) }
                }
            }
            try insert(store, 1, from: 1)  // commit 3
            #expect(try logged() == .integer(3))  // three commits counted, not eight: no pruning yet
            try insert(store, 1, from: 2)  // commit 4
            #expect(try logged() == .integer(1))  // the fourth commit made pruning due
        }
    }

    @Test func transactionalAcknowledgementIsExactlyOnceAcrossAKill() throws {
        try withTemporaryStore { store, path in
            try store.write { try $0.execute("CREATE TABLE consumed (seq INTEGER PRIMARY KEY)") }  // seq 1
            for index in 0..<200 { try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
            let output = path + ".consumed"
            let killed = try RunningProcess("store-fixture", ["consume", path, "exactly", output, "transactional", "3"])
            try waitUntil { (try? String(contentsOfFile: output, encoding: .utf8))?.split(separator: "\n").count ?? 0 >= 40 }
            killed.kill()
            _ = killed.wait()
            let resumed = try run("store-fixture", ["consume", path, "exactly", output, "transactional"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let rows = try store.read { try $0.fetchRows("SELECT seq FROM consumed ORDER BY seq") }.map { $0.value("seq", as: Int64.self)! }
            // Every commit once (1 is the schema change that created `consumed`): the PRIMARY KEY refuses repeats.
            #expect(rows == Array(1...201))
            // Its own `consumed` commits do not match its filter; it moved past them too.
            #expect(try store.durableListeners().first?.lag == 0)
        }
    }

    @Test func plainAcknowledgementIsAtLeastOnceAcrossAKill() throws {
        try withTemporaryStore { store, path in
            for index in 0..<200 { try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
            let output = path + ".consumed"
            let killed = try RunningProcess("store-fixture", ["consume", path, "plain", output, "3"])
            try waitUntil { (try? String(contentsOfFile: output, encoding: .utf8))?.split(separator: "\n").count ?? 0 >= 40 }
            killed.kill()
            _ = killed.wait()
            let resumed = try run("store-fixture", ["consume", path, "plain", output])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map { Int64($0)! }
            // Nothing lost, in order; at most the one commit in flight at the kill came twice.
            #expect(Array(Set(lines)).sorted() == Array(1...200))
            #expect(lines.count - Set(lines).count <= 1)
            #expect(lines == lines.sorted())
        }
    }
}

extension Recorder where Element == DurableEvent {
    /// The sequences of the commits received so far.
    var sequences: [Int64] {
        all.compactMap { if case .commit(let delivery) = $0 { delivery.commit.sequence } else { nil } }
    }
}
