#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import TestScheduling
import Testing

/// Durable listeners on PostgreSQL: a cursor row, one consumer per name by a session advisory lock, takeover,
/// compare-and-set acknowledgement, retention.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerDurableListenerTests {
    /// Inserts `count` nodes, one commit each; returns their sequences.
    private func insertNodes(_ server: ObservedServer, _ count: Int, prefix: String = "n") throws -> [Int64] {
        try (0..<count).map { index in
            try #require(try server.commit("INSERT INTO nodes (name, x, y) VALUES ('\(prefix)\(index)', 0, 0)"))
        }
    }

    /// The durable commits received so far.
    private func sequences(_ log: DurableLog) -> [Int64] { log.sequences }

    @Test func itResumesAfterReopenWithTheCommitsOtherProgramsMadeWhileAway() throws {
        try ObservedServer.with { server in
            let received = DurableLog()
            var store = try server.openStore()
            var token = try store.listenDurably("mailer", filter: .table("nodes")) { event in received.record(event) }
            let first = try insertNodes(server, 3)
            try waitUntil { sequences(received) == first }
            token.cancel()
            store.close()
            let whileAway = try insertNodes(server, 4, prefix: "away")
            try server.commit("INSERT INTO user_info (id, name) VALUES ('me', 'Ada')")  // not for this filter
            store = try server.openStore()
            defer { store.close() }
            token = try store.listenDurably("mailer", filter: .table("nodes")) { event in received.record(event) }
            defer { token.cancel() }
            let live = try insertNodes(server, 2, prefix: "live")
            try waitUntil { sequences(received).count >= 9 }
            Thread.sleep(forTimeInterval: 0.3)
            #expect(sequences(received) == first + whileAway + live, "each once, in order, none lost")
            let info = try #require(try store.durableListeners().first)
            #expect(info.name == "mailer")
            try waitUntil { (try store.durableListeners().first?.cursor ?? 0) == live.last! }
        }
    }

    @Test func aSecondClaimantWaitsAndTakesOverWhenTheHolderCloses() throws {
        try ObservedServer.with { server in
            let firstLog = DurableLog()
            let secondLog = DurableLog()
            let holder = try server.openStore()
            let standby = try server.openStore()
            defer { standby.close() }
            let firstToken = try holder.listenDurably("one", startingAt: .beginning) { event in firstLog.record(event) }
            try waitUntil { sequences(firstLog).isEmpty && holderHolds(server, "one") }
            let secondToken = try standby.listenDurably("one") { event in secondLog.record(event) }
            defer { secondToken.cancel() }
            let before = try insertNodes(server, 3)
            try waitUntil { sequences(firstLog) == before }
            Thread.sleep(forTimeInterval: 0.6)
            #expect(sequences(secondLog).isEmpty, "the standby delivers nothing while the name is held")
            firstToken.cancel()
            holder.close()
            let after = try insertNodes(server, 3, prefix: "after")
            try waitUntil { sequences(secondLog) == after }
            #expect(sequences(firstLog) == before)
        }
    }

    @Test func theStandbyTakesOverWhenTheHoldersSessionIsKilled() throws {
        try ObservedServer.with { server in
            let firstLog = DurableLog()
            let secondLog = DurableLog()
            let holder = try server.openStore()
            defer { holder.close() }
            let standby = try server.openStore()
            defer { standby.close() }
            let firstToken = try holder.listenDurably("one") { event in firstLog.record(event) }
            defer { firstToken.cancel() }
            try waitUntil { holderHolds(server, "one") }
            let secondToken = try standby.listenDurably("one") { event in secondLog.record(event) }
            defer { secondToken.cancel() }
            let before = try insertNodes(server, 2)
            try waitUntil { sequences(firstLog) == before }
            // Kill the holder's lock session: the standby takes the name; the holder stops and stands by.
            try server.psql.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = "
                    + "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                    + "AND objid::bigint = (hashtext('store.listener:one')::bigint & 4294967295)")
            Thread.sleep(forTimeInterval: 0.8)
            let after = try insertNodes(server, 3, prefix: "after")
            try waitUntil { sequences(firstLog).count + sequences(secondLog).count >= 5 }
            Thread.sleep(forTimeInterval: 0.5)
            // At least once across the two: between the lock session's death and the holder noticing it, both may
            // deliver (an advisory lock has no fencing). Exactly-once effects need acknowledge(in:), tested below.
            let all = Set(sequences(firstLog) + sequences(secondLog))
            #expect(all == Set(before + after), "every commit delivered, none lost")
            // The claim retries every 250 ms: under the full suite the name may still be free for a moment.
            try waitUntil { holderHolds(server, "one") }  // one of them holds the name again
        }
    }

    @Test func acknowledgingInTheHandlersTransactionIsACompareAndSet() throws {
        try ObservedServer.with { server in
            try server.psql.execute("CREATE TABLE effects (seq bigint PRIMARY KEY)")
            let store = try server.openStore()
            defer { store.close() }
            let effects = try ServerConnection.connect(server.url)
            defer { effects.close() }
            let token = try store.listenDurably("effects", filter: .table("nodes")) { event in
                guard case .commit(let delivery) = event else { return }
                try effects.execute("BEGIN")
                do {
                    try effects.execute("INSERT INTO effects VALUES ($1)", [.integer(delivery.commit.sequence)])
                    try store.acknowledge(delivery, on: effects)
                    try effects.execute("COMMIT")
                } catch {
                    _ = try? effects.execute("ROLLBACK")
                    throw error
                }
            }
            defer { token.cancel() }
            let written = try insertNodes(server, 5)
            try waitUntil { try server.psql.query("SELECT count(*) FROM effects").scalar == .integer(5) }
            // A second consumer that acknowledges a commit already acknowledged fails, and its effects roll back.
            let stale = try ServerConnection.connect(server.url)
            defer { stale.close() }
            try stale.execute("BEGIN")
            try stale.execute("INSERT INTO effects VALUES (-1)")
            let error = #expect(throws: StoreError.self) {
                try store.acknowledge(
                    DurableCommit(
                        commit: Commit(sequence: written[2], committedAt: Date(), origin: nil, changes: [], schemaChanged: false),
                        listenerName: "effects", acknowledged: LockedValue(false)), on: stale)
            }
            #expect(error?.code == .busy)
            try stale.execute("ROLLBACK")
            #expect(try server.psql.query("SELECT array_agg(seq ORDER BY seq)::text FROM effects").scalar
                == .text("{" + written.map(String.init).joined(separator: ",") + "}"))
        }
    }

    @Test func aConsumerThatTookOverSkipsACommitTheOldHolderAcknowledgedLate() throws {
        try ObservedServer.with { server in
            try server.psql.execute("CREATE TABLE effects (seq bigint NOT NULL, consumer text NOT NULL)")
            let holder = try server.openStore()
            defer { holder.close() }
            let standby = try server.openStore()
            defer { standby.close() }
            let holderInWrite = DispatchSemaphore(value: 0)
            let releaseHolder = DispatchSemaphore(value: 0)
            let standbyDelivering = DispatchSemaphore(value: 0)
            let releaseStandby = DispatchSemaphore(value: 0)
            let firstDelivery = LockedValue(true)
            // The holder records the commit in `effects` and, inside the same write, waits, then acknowledges. Until it
            // notices that its lock session died it may still get `second`: that write waits until the test ends (then
            // its acknowledgement fails and it rolls back), so only the standby can consume `second`.
            let holderToken = try holder.listenDurably("one", filter: .table("nodes")) { event in
                guard case .commit(let delivery) = event else { return }
                try holder.write { tx in
                    try tx.execute(
                        "INSERT INTO effects (seq, consumer) VALUES ($1, 'holder')", [delivery.commit.sequence])
                    holderInWrite.signal()
                    _ = releaseHolder.wait(timeout: .now() + 40)
                    try delivery.acknowledge(in: tx)
                }
            }
            defer { holderToken.cancel() }
            defer { for _ in 0..<3 { releaseHolder.signal() } }  // before the cancel, which waits for the handler
            try waitUntil { holderHolds(server, "one") }
            // The standby, at its first delivery, waits before its write; then the same write as the holder's.
            let standbyToken = try standby.listenDurably("one", filter: .table("nodes")) { event in
                guard case .commit(let delivery) = event else { return }
                if firstDelivery.exchange(false) {
                    standbyDelivering.signal()
                    _ = releaseStandby.wait(timeout: .now() + 40)
                }
                try standby.write { tx in
                    try tx.execute(
                        "INSERT INTO effects (seq, consumer) VALUES ($1, 'standby')", [delivery.commit.sequence])
                    try delivery.acknowledge(in: tx)
                }
            }
            defer { standbyToken.cancel() }
            let first = try #require(try insertNodes(server, 1).first)
            try #require(holderInWrite.wait(timeout: .now() + 10) == .success, "the holder inside its write")
            // The holder's lock session dies while its handler's write is open: the standby takes the name, reads the
            // cursor (before the holder's acknowledgement) and gets the same commit.
            try server.psql.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = "
                    + "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                    + "AND objid::bigint = (hashtext('store.listener:one')::bigint & 4294967295)")
            try #require(standbyDelivering.wait(timeout: .now() + 10) == .success, "the standby delivering it again")
            // The dying holder's write commits first (its effect and the cursor); the standby's compare-and-set then
            // fails, its write rolls back, and it must go on after the commit rather than retry it for ever.
            releaseHolder.signal()
            try waitUntil { try integer(server.psql, "SELECT count(*) FROM effects") == 1 }
            releaseStandby.signal()
            let second = try #require(try insertNodes(server, 1, prefix: "second").first)
            let expected = "\(first):holder,\(second):standby"
            try waitUntil {
                try server.psql.query("SELECT string_agg(seq || ':' || consumer, ',' ORDER BY seq) FROM effects").scalar
                    == .text(expected)
            }
            try waitUntil { (try standby.durableListeners().first?.cursor ?? 0) == second }
        }
    }

    @Test func aCursorBehindTheRetainedLogGetsCursorExpired() throws {
        try ObservedServer.with { server in
            let store = try server.openStore { $0.retention = RetentionPolicy(minimumKeptCommits: 2, minimumKeptAge: nil, hardCapCommits: 2) }
            defer { store.close() }
            let received = DurableLog()
            var token = try store.listenDurably("slow") { event in received.record(event) }
            token.cancel()
            let written = try insertNodes(server, 6)
            #expect(try store.pruneChangeLog() == 4)
            #expect(try server.psql.query("SELECT value FROM _store_meta WHERE key = 'pruned_through'").scalar == .integer(written[3]))
            #expect(try server.psql.query("SELECT count(*) FROM _store_changes").scalar == .integer(2))
            token = try store.listenDurably("slow") { event in received.record(event) }
            defer { token.cancel() }
            try waitUntil { sequences(received).count >= 2 }
            let events = received.all
            guard case .resync(.cursorExpired(let missed)) = events.first else {
                Issue.record("expected cursorExpired first, got \(events)")
                return
            }
            #expect(missed == written[0]...written[3])
            #expect(sequences(received) == Array(written[4...]))
        }
    }

    @Test func pruningKeepsWhatADurableCursorNeeds() throws {
        try ObservedServer.with { server in
            let store = try server.openStore { $0.retention = RetentionPolicy(minimumKeptCommits: 0, minimumKeptAge: nil, hardCapCommits: nil) }
            defer { store.close() }
            let token = try store.listenDurably("held") { _ in throw StoreError(.busy, "not now") }
            defer { token.cancel() }
            _ = try insertNodes(server, 3)
            #expect(try store.pruneChangeLog() == 0, "the cursor still needs every commit")
            token.cancel()
            try store.resetDurableListener("held", to: 2)
            #expect(try store.pruneChangeLog() == 2)
            #expect(try store.deleteDurableListener("held"))
            #expect(try store.pruneChangeLog() == 1)
            let missing = #expect(throws: StoreError.self) { try store.resetDurableListener("nobody", to: 1) }
            #expect(missing?.code == .notFound)
        }
    }

    /// Whether some session holds durable listener `name`'s lock.
    private func holderHolds(_ server: ObservedServer, _ name: String) -> Bool {
        (try? server.psql.query(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = "
                + "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                + "AND objid::bigint = (hashtext('store.listener:' || $1)::bigint & 4294967295)", [.text(name)]).scalar)
            == .integer(1)
    }
}
#endif
