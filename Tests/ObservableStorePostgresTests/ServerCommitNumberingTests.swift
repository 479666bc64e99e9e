#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import Synchronization
import TestScheduling
import Testing

/// Commits numbered after they commit (migration 0002): a ticket at COMMIT, gap-free sequence numbers given in
/// ticket order by one stamper at a time. The hazards: a snapshot that holds a commit not yet numbered, commits
/// waiting while the stamp lock is taken, a writer or a stamper killed halfway, hot rows with lock waits, many
/// writers at once, and a store upgraded from 0001 while writers run.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes), .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerCommitNumberingTests {
    /// The stamp lock's advisory key (`_store_stamp_lock()`, 'STORSTMP').
    static let stampLockKey: Int64 = 6_004_511_418_195_660_112

    @Test func aCommitThatFindsTheStampLockTakenWaitsAndIsNumberedByTheNextStamper() throws {
        try ObservedServer.with { server in
            let store = try server.openStore { $0.tracksChanges = false }
            defer { store.close() }
            try withStampLockHeld(server) { release in
                try server.psql.execute("INSERT INTO nodes (name, x, y) VALUES ('a', 0, 0)")
                try server.psql.execute("INSERT INTO nodes (name, x, y) VALUES ('b', 0, 0)")
                #expect(try waitingCommits(server) == 2, "committed, not numbered")
                #expect(try integer(server.psql, "SELECT seq FROM _store_head") == 0)
                try release()
            }
            // The next commit whose COMMIT finds the lock free numbers the two waiting ones first, in ticket order.
            let written = try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "c", x: 0, y: 0)) }
            #expect(written.sequence == 3)
            let names = try server.psql.query(
                "SELECT ch.new_row->>'name' FROM _store_commits c JOIN _store_changes ch USING (txid) ORDER BY c.seq"
            ).rows.map { $0[0] }
            #expect(names == [.text("a"), .text("b"), .text("c")])
            #expect(try waitingCommits(server) == 0)
        }
    }

    @Test func aWriteWhoseWaitForItsNumberFailsKeepsItsDataAndItsConnectionIsNotReused() throws {
        try ObservedServer.with { server in
            // Every session of this database gives up lock waits after 100 ms.
            try server.psql.execute("ALTER DATABASE \(server.url.database) SET lock_timeout = '100ms'")
            let store = try server.openStore {
                $0.tracksChanges = false
                $0.maximumConnectionCount = 1
            }
            defer { store.close() }
            let written = try withStampLockHeld(server, releasedForAWaiter: false) { _ in
                try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "kept", x: 0, y: 0)) }
            }
            #expect(written.sequence == nil, "the wait for the number timed out")
            #expect(written.value.name == "kept")
            #expect(try integer(server.psql, "SELECT count(*) FROM nodes WHERE name = 'kept'") == 1, "the data is committed")
            // The next write on a fresh connection logs nothing and must not report the earlier commit as its own.
            let nothing = try store.writeReturningCommit { tx in try tx.fetchAll(RecordQuery<NodeVO>()).count }
            #expect(nothing.value == 1)
            #expect(nothing.sequence == nil)
            let next = try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "next", x: 0, y: 0)) }
            #expect(next.sequence == 2, "the waiting commit was numbered first")
        }
    }

    @Test func aSnapshotHoldingAWaitingCommitReportsItAndBindAndFireSkipsItsEvent() throws {
        try ObservedServer.with { server in
            let store = try server.openStore()
            defer { store.close() }
            try server.commit("INSERT INTO nodes (name, x, y) VALUES ('first', 0, 0)")
            let calls = Mutex<[[String]]>([])
            let token = try withStampLockHeld(server) { _ in
                try server.psql.execute("INSERT INTO nodes (name, x, y) VALUES ('waiting', 0, 0)")
                #expect(try waitingCommits(server) == 1)
                // The snapshot holds 'waiting' but the head is 1: the read numbers it (waiting for the lock, freed
                // when the read waits) and reports it as a later commit it holds.
                let (names, position) = try store.readSnapshot { tx in try tx.fetchAll(RecordQuery<NodeVO>()).map(\.name) }
                #expect(names == ["first", "waiting"])
                #expect(position == SnapshotPosition(sequence: 1, laterCommits: [2]))
                return try withStampLockHeld(server) { _ in
                    try server.psql.execute("INSERT INTO nodes (name, x, y) VALUES ('second waiting', 0, 0)")
                    return try store.bindAndFire("board", query: RecordQuery<NodeVO>()) { nodes in
                        calls.withLock { $0.append(nodes.map(\.name)) }
                    }
                }
            }
            defer { token.cancel() }
            try server.commit("INSERT INTO nodes (name, x, y) VALUES ('last', 0, 0)")
            try waitUntil("the value after the last commit") { calls.withLock { $0.count } >= 2 }
            Thread.sleep(forTimeInterval: 0.5)  // a duplicate delivery would arrive by now
            #expect(
                calls.withLock { $0 } == [["first", "waiting", "second waiting"], ["first", "waiting", "second waiting", "last"]],
                "the value at once, then once per commit it did not hold")
        }
    }

    @Test func aWriterKilledAfterItsCommitAndAWriterAbortedAfterItsTicketLoseNothing() throws {
        try ObservedServer.with { server in try server.withListeningStore { log in
            // A commit whose deferred check runs after the ticket and sleeps: it is aborted there (its ticket is lost).
            try server.psql.execute("CREATE TABLE slow_commit (x int)")
            try server.psql.execute(
                "CREATE FUNCTION slow_commit_check() RETURNS trigger LANGUAGE plpgsql AS "
                    + "$$ BEGIN PERFORM pg_sleep(30); RETURN NULL; END; $$")
            try server.psql.execute(
                "CREATE CONSTRAINT TRIGGER slow_commit_check AFTER INSERT ON slow_commit "
                    + "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit_check()")
            try withStampLockHeld(server, releasedForAWaiter: false) { release in
                // A store process commits, then waits in _store_settle() for the stamp lock: killed there.
                let writer = try RunningProcess("store-fixture", ["pg-write", server.url.text, "5"])
                defer { if writer.isRunning { writer.kill() } }
                try waitUntil("the writer's first commit, waiting") { try waitingCommits(server) == 1 }
                writer.kill()
                _ = writer.wait()
                // psql: a commit that took its ticket, then is aborted by its slow check.
                let aborted = try ServerConnection.connect(server.url)
                defer { aborted.close() }
                let backend = try integer(aborted, "SELECT pg_backend_pid()")
                let abortedCommit = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    _ = try? aborted.execute("BEGIN")
                    _ = try? aborted.execute("INSERT INTO nodes (name, x, y) VALUES ('aborted', 0, 0)")
                    _ = try? aborted.execute("INSERT INTO slow_commit VALUES (1)")
                    _ = try? aborted.execute("COMMIT")
                    abortedCommit.signal()
                }
                try waitUntil("the aborted commit's ticket") {
                    try integer(server.psql, "SELECT last_value FROM _store_ticket") >= 2
                        && integer(
                        server.psql,
                        "SELECT count(*) FROM pg_stat_activity "
                            + "WHERE wait_event = 'PgSleep' AND datname = current_database()") == 1
                }
                // Later commits of other writers, waiting too.
                for index in 0..<3 { try server.psql.execute("INSERT INTO nodes (name, x, y) VALUES ('later\(index)', 0, 0)") }
                try server.psql.execute("SELECT pg_terminate_backend(\(backend))")
                #expect(abortedCommit.wait(timeout: .now() + 30) == .success)
                #expect(try waitingCommits(server) == 4, "the killed writer's commit and psql's three")
                try release()
            }
            // The listening store's feed numbers what waits (nobody else writes).
            try expectDelivered(log, names: ["w0", "later0", "later1", "later2"])
            #expect(try integer(server.psql, "SELECT count(*) FROM nodes WHERE name = 'aborted'") == 0)
            try expectGapFree(server, commits: 4)
        } }
    }

    @Test func aStamperKilledMidBatchNumbersNothingTwice() throws {
        try ObservedServer.with { server in try server.withListeningStore { log in
            try server.commit("INSERT INTO nodes (name, x, y) VALUES ('before', 0, 0)")
            try log.waitForCommits(1)
            // A psql process numbers a batch inside an open transaction, then is killed with SIGKILL before COMMIT.
            let stamper = try RunningProcess(
                executable: URL(fileURLWithPath: try PostgresTestServer.psqlPath()),
                ["-X", "-q", "-d", server.url.text + "?application_name=killed_stamper",
                 "-c", "SET client_connection_check_interval = '100ms'", "-c", "BEGIN",
                 "-c", "SELECT pg_advisory_xact_lock(\(Self.stampLockKey))",
                 "-c", "SELECT pg_sleep(2)", "-c", "SELECT _store_number_commits()", "-c", "SELECT pg_sleep(60)"])
            defer { if stamper.isRunning { stamper.kill() } }
            try waitUntil("the stamper to hold the lock") {
                try integer(
                    server.psql,
                    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' "
                        + "AND l.granted AND (l.classid::int8 << 32 | l.objid::int8) = \(Self.stampLockKey) "
                        + "AND a.application_name = 'killed_stamper' AND a.datname = current_database()") == 1
            }
            for index in 0..<3 { try server.psql.execute("INSERT INTO nodes (name, x, y) VALUES ('batch\(index)', 0, 0)") }
            try waitUntil("the batch numbered, uncommitted") {
                try integer(server.psql, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' "
                    + "AND application_name = 'killed_stamper' AND datname = current_database() "
                    + "AND query LIKE '%pg_sleep(60)%'") == 1
            }
            let waiting = try waitingCommits(server)
            #expect(waiting == 3, "the stamper's numbers are invisible until it commits")
            stamper.kill()
            _ = stamper.wait()
            try expectDelivered(log, names: ["before", "batch0", "batch1", "batch2"])
            try expectGapFree(server, commits: 4)
        } }
    }

    @Test func writersWaitingOnHotRowsAreNumberedInAnOrderThatReplaysToTheFinalTable() throws {
        try ObservedServer.with { server in try server.withListeningStore { log in
            let hotRows = 5
            try server.commit(
                "INSERT INTO nodes (name, x, y) SELECT 'hot' || i, i, 0 FROM generate_series(0, \(hotRows - 1)) i")
            // psql writers: pgbench, 4 clients × 40 transactions, each adding 1 to two hot rows (lowest id first).
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("pgbench-hot-\(UUID().uuidString).sql")
            try """
                \\set a random(0, \(hotRows - 1))
                \\set b random(0, \(hotRows - 1))
                BEGIN;
                UPDATE nodes SET y = y + 1 WHERE name = 'hot' || least(:a, :b);
                SELECT pg_sleep(0.001);
                UPDATE nodes SET y = y + 1 WHERE name = 'hot' || greatest(:a, :b) AND :a <> :b;
                END;
                """.write(to: script, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: script) }
            let pgbench = try RunningProcess(
                executable: URL(fileURLWithPath: "/usr/bin/env"),
                ["pgbench", "-n", "-c", "4", "-t", "40", "-f", script.path, server.url.text])
            defer { if pgbench.isRunning { pgbench.kill() } }
            // SQLiteStore writers: two processes with two threads each, 40 commits per thread.
            let writers = try (0..<2).map { _ in
                try RunningProcess("store-fixture", ["pg-hot", server.url.text, "40", "\(hotRows)", "2"])
            }
            defer { for writer in writers where writer.isRunning { writer.kill() } }
            for writer in writers {
                let result = writer.wait()
                #expect(result.status == 0, "\(result.stderr)")
            }
            let benchmark = pgbench.wait()
            #expect(benchmark.status == 0, "pgbench: \(benchmark.stderr)")

            let commits = 1 + 4 * 40 + 4 * 40
            try log.waitForCommits(commits, seconds: 60)
            Thread.sleep(forTimeInterval: 0.5)
            #expect(log.commits.map(\.sequence) == Array(1...Int64(commits)), "every commit once, in sequence order")
            try expectGapFree(server, commits: Int64(commits))
            // Each update's old image is the new image of the row's change before it, in sequence order.
            let broken = try integer(
                server.psql,
                """
                WITH changes AS (
                  SELECT c.seq, ch.ord, ch.op, (coalesce(ch.new_row, ch.old_row)->>'id')::bigint AS id, ch.old_row, ch.new_row
                  FROM _store_changes ch JOIN _store_commits c USING (txid) WHERE ch.tbl = 'nodes'),
                chained AS (
                  SELECT op, old_row, lag(new_row) OVER (PARTITION BY id ORDER BY seq, ord) AS previous FROM changes)
                SELECT count(*) FROM chained WHERE op = 'U' AND previous IS DISTINCT FROM old_row
                """)
            #expect(broken == 0, "no broken chain of row images")
            let differing = try integer(
                server.psql,
                """
                SELECT count(*) FROM nodes n WHERE to_jsonb(n) IS DISTINCT FROM (
                  SELECT ch.new_row FROM _store_changes ch JOIN _store_commits c USING (txid)
                  WHERE ch.tbl = 'nodes' AND (coalesce(ch.new_row, ch.old_row)->>'id')::bigint = n.id
                  ORDER BY c.seq DESC, ch.ord DESC LIMIT 1)
                """)
            #expect(differing == 0, "the images replayed in sequence order give the final table")
            let increments = try integer(server.psql, "SELECT sum(y) FROM nodes")
            let updates = try integer(server.psql, "SELECT count(*) FROM _store_changes WHERE op = 'U'")
            #expect(increments == updates && updates >= 4 * 40 + 4 * 40, "every update captured once")
        } }
    }

    @Test func bindAndFireObservedValuesAndADurableListenerUnderSixteenWritersHaveNoGapOrDuplicate() async throws {
        try await ObservedServer.withAsync { server in
            let counterID = try await #require(try server.psql.query(
                "INSERT INTO nodes (name, x, y) VALUES ('counter', 0, 0) RETURNING id").scalar.flatMap(Int64.fromDatabaseValue))
            try await server.psql.execute("SELECT _store_settle()")
            let listening = try server.openStore()
            defer { listening.close() }
            let writers = try (0..<2).map { _ in try server.openStore { $0.maximumConnectionCount = 8 } }
            defer { for store in writers { store.close() } }
            let perWriter = 25
            let written = Mutex<[Int64]>([])
            let failures = Mutex<[String]>([])
            let started = Mutex(0)
            let observersBound = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for writer in 0..<16 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    for index in 0..<perWriter {
                        // Half the writes before the observers start, half after: they bind while commits go on.
                        // Blocked, not spinning, so that a loaded run is not slowed; a failed test frees them in 300 s.
                        if index == perWriter / 2 { _ = observersBound.wait(timeout: .now() + 300) }
                        do {
                            let commit = try writers[writer % 2].writeReturningCommit { tx in
                                try tx.execute("UPDATE nodes SET y = y + 1 WHERE id = ?", [counterID])
                            }
                            if let sequence = commit.sequence { written.withLock { $0.append(sequence) } }
                            started.withLock { $0 += 1 }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            // The observers start while the writers write (some stand at their half, others are still writing).
            try await waitUntil("the first commits") { started.withLock { $0 } >= 20 }
            let bound = Mutex<[Int]>([])
            let bindToken = try listening.bindAndFire("counter", NodeVO.self, key: counterID) { node in
                bound.withLock { $0.append(Int(node?.y ?? -1)) }
            }
            defer { bindToken.cancel() }
            let durable = DurableLog()
            let durableToken = try listening.listenDurably("counter-log", filter: .table("nodes")) { durable.record($0) }
            defer { durableToken.cancel() }
            let observed = try listening.value(of: NodeVO.self, key: counterID)
            let total = 16 * perWriter
            for _ in 0..<16 { observersBound.signal() }
            let observing = Task {
                var values: [Int] = []
                for try await node in observed {
                    values.append(Int(node.value?.y ?? -1))
                    if values.last == total { break }
                }
                return values
            }
            #expect(await Task.detached { group.wait(timeout: .now() + 120) }.value == .success, "the writers finished")
            #expect(failures.withLock { $0 }.isEmpty)
            let sequences = written.withLock { $0 }
            #expect(sequences.count == total && Set(sequences).count == total, "every write got its own sequence")
            try await waitUntil(timeout: 60, "the bound value to reach \(total)") { bound.withLock { $0.last } == total }
            let values = bound.withLock { $0 }
            #expect(values.count >= 2)
            #expect(zip(values, values.dropFirst()).allSatisfy { $1 == $0 + 1 }, "bind-and-fire: each commit once, none skipped")
            let fresh = try await listening.read { tx in try tx.fetch(NodeVO.self, key: counterID) }
            #expect(values.last == Int(fresh?.y ?? -1), "the last value is a fresh read's")
            let streamed = try await observing.value
            #expect(zip(streamed, streamed.dropFirst()).allSatisfy { $1 > $0 }, "observed values never repeat or go back")
            #expect(streamed.last == total)
            let head = try listening.lastSequence()
            try await waitUntil(timeout: 60, "the durable listener to reach the head") { durable.sequences.last == head }
            let delivered = durable.sequences
            #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $1 == $0 + 1 }, "durable: no gap, no duplicate")
            #expect(head == Int64(total) + 1)
        }
    }

    @Test func aStoreUpgradedFromTheFirstSchemeWhileWritersRunKeepsOneGapFreeOrder() throws {
        try TestServer.withDatabase { url in
            var first = PostgresStoreConfiguration()
            first.migrationPolicy = .migrateUpTo(version: 1, set: MigrationSet.storeSetName)
            let old = try PostgresStore(url: url.text, configuration: first)
            defer { old.close() }
            let log = EventLog()
            let token = old.listen("all") { log.record($0) }
            defer { token.cancel() }
            let before = try old.writeReturningCommit { tx in try tx.insert(NodeVO(name: "before", x: 0, y: 0)) }
            #expect(before.sequence == 1, "stamped at COMMIT by the 0001 scheme")
            // A writer of the old scheme in the middle of its transaction: the upgrade waits for it.
            let open = try ServerConnection.connect(url)
            defer { open.close() }
            try open.execute("BEGIN")
            try open.execute("INSERT INTO nodes (name, x, y) VALUES ('open during the upgrade', 0, 0)")
            let upgraded = Mutex<Result<PostgresStore, any Error>?>(nil)
            DispatchQueue.global().async {
                var second = PostgresStoreConfiguration()
                second.migrationPolicy = .migrateUpTo(version: 2, set: MigrationSet.storeSetName)
                let result = Result { try PostgresStore(url: url.text, configuration: second) }
                upgraded.withLock { $0 = result }
            }
            try withAdmin(url) { admin in
                try waitUntil("the upgrade to wait for the open writer") {
                    try integer(
                        admin,
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() "
                            + "AND query LIKE '%_store_ticket%'") == 1
                }
            }
            #expect(upgraded.withLock { $0 } == nil)
            try open.execute("COMMIT")
            try waitUntil(timeout: 30, "the upgrade") { upgraded.withLock { $0 } != nil }
            let store = try #require(try upgraded.withLock { $0 }?.get())
            defer { store.close() }
            let after = try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "after", x: 0, y: 0)) }
            // 1 before, 2 the open writer (old scheme), 3 the migration's own logged commit, 4 after (a ticket).
            #expect(after.sequence == 4)
            let ticketed = try withAdmin(url) { try integer($0, "SELECT count(*) FROM _store_commits WHERE ticket IS NOT NULL") }
            #expect(ticketed == 2, "the migration's commit and the one after it took tickets")
            #expect(try withAdmin(url) { try integer($0, "SELECT max(version) FROM _store_migrations") } == 2)
            // The store opened on the first scheme goes on writing and delivering.
            let late = try old.writeReturningCommit { tx in try tx.insert(NodeVO(name: "late", x: 0, y: 0)) }
            #expect(late.value.name == "late")
            try log.waitForCommits(5, seconds: 30)
            Thread.sleep(forTimeInterval: 0.5)
            #expect(log.commits.map(\.sequence) == [1, 2, 3, 4, 5])
            #expect(log.commits[2].origin == "migration:store/0002_concurrent_commits" && log.commits[2].schemaChanged)
        }
    }

    // MARK: - Helpers

    /// Runs `body` while another session holds the stamp lock, so that commits wait for their number; `body` may
    /// free it early with the closure it gets. When `releasedForAWaiter`, a waiter on the lock (a snapshot read
    /// numbering what it holds) frees it too, so that `body` never waits for itself.
    private func withStampLockHeld<T>(
        _ server: ObservedServer, releasedForAWaiter: Bool = true, _ body: (_ release: () throws -> Void) throws -> T
    ) throws -> T {
        let holder = try ServerConnection.connect(server.url)
        defer { holder.close() }
        try holder.execute("SELECT pg_advisory_lock(\(Self.stampLockKey))")
        let released = Mutex(false)
        let release: @Sendable () throws -> Void = {
            guard !released.withLock({ $0 }) else { return }
            try holder.execute("SELECT pg_advisory_unlock(\(Self.stampLockKey))")
            released.withLock { $0 = true }
        }
        let watching = Mutex(releasedForAWaiter)
        let watcher = DispatchSemaphore(value: 0)
        let watchConnection = try ServerConnection.connect(server.url)
        defer { watchConnection.close() }
        DispatchQueue.global().async {
            defer { watcher.signal() }
            while watching.withLock({ $0 }) {
                let waiters = (try? integer(
                    watchConnection,
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                        + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                        + "AND (classid::int8 << 32 | objid::int8) = \(Self.stampLockKey)")) ?? 0
                if waiters > 0 {
                    try? release()
                    return
                }
                usleep(5_000)
            }
        }
        defer {
            watching.withLock { $0 = false }
            _ = watcher.wait(timeout: .now() + 30)
            try? release()
        }
        return try body(release)
    }

    /// Waits for as many commits as `names`, then expects them numbered 1, 2, … each once, their inserted nodes
    /// named `names` in that order.
    private func expectDelivered(_ log: EventLog, names: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try log.waitForCommits(names.count, seconds: 30)
        Thread.sleep(forTimeInterval: 0.5)  // a commit delivered twice would arrive by now
        #expect(
            log.commits.map(\.sequence) == Array(1...Int64(names.count)), "every commit once, in order",
            sourceLocation: sourceLocation)
        let inserted = log.commits.flatMap { $0.changes.compactMap { $0.new?["name"] } }
        #expect(inserted == names.map { .text($0) }, sourceLocation: sourceLocation)
    }

    /// How many commits are committed and not numbered yet.
    private func waitingCommits(_ server: ObservedServer) throws -> Int64 {
        try integer(server.psql, "SELECT count(*) FROM _store_commits WHERE seq IS NULL AND ticket IS NOT NULL")
    }

    /// Every commit numbered, 1…`commits`, the head at the last.
    private func expectGapFree(_ server: ObservedServer, commits: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try integer(server.psql, "SELECT count(*) FROM _store_commits") == commits, sourceLocation: sourceLocation)
        #expect(
            try integer(server.psql, "SELECT max(seq) FROM _store_commits") == commits, "max(seq) = count(*)",
            sourceLocation: sourceLocation)
        #expect(try integer(server.psql, "SELECT seq FROM _store_head") == commits, sourceLocation: sourceLocation)
        #expect(try waitingCommits(server) == 0, sourceLocation: sourceLocation)
    }
}
#endif
