#if PostgreSQL
import Dispatch
import Foundation
import Logging
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import Synchronization
import TestScheduling
import Testing

/// Writes and reads whose closure awaits its statements (`try await tx.insert(node)`), and the pool's awaited
/// check-out: the same results as the blocking forms, with no thread waiting for the server.
///
/// Each test runs on one thread of its own (``ThreadPerTestTrait``), and so do the tasks it starts: a statement that
/// blocked that thread would stop the test's other tasks (and fail it).
@Suite(.enabled(if: TestServer.isAvailable, TestServer.skipReason), .timeLimit(.minutes(10)), .threadPerTest)
struct PostgresAwaitedTransactionTests {
    @Test func anAwaitedClosureWritesRecordsReturnsItsCommitAndPublishesItBeforeReturning() async throws {
        try await ObservedServer.withAsync { server in
            let store = try server.openStore()
            defer { store.close() }
            let log = EventLog()
            let token = store.listen("now", options: ListenerOptions(immediate: true)) { log.record($0) }
            defer { token.cancel() }
            let written = try await store.writeReturningCommit(origin: "awaited") { tx in
                var node = try await tx.insert(NodeVO(name: "A", x: 1, y: 1))
                node.x = 2
                try await tx.update(node)
                try await tx.update(NodeVO(id: node.id, name: "ignored", x: 3, y: 9), columns: ["x"])
                _ = try await tx.upsert(NodeVO(name: "B", x: 5, y: 5))
                let gone = try await tx.insert(NodeVO(name: "C", x: 6, y: 6))
                #expect(try await tx.delete(gone))
                #expect(try await tx.execute("UPDATE nodes SET y = y + 1 WHERE name = ?", ["B"]) == 1)
                return node
            }
            let sequence = try #require(written.sequence)
            #expect(log.commits.map(\.sequence) == [sequence], "an immediate listener ran before the write returned")
            #expect(log.commits.first?.origin == "awaited")
            #expect(log.commits.first?.changes.count == 7)
            let id = try #require(written.value.id)
            let seen = try await store.read { tx in
                (
                    try await tx.fetch(NodeVO.self, key: id), try await tx.count(RecordQuery<NodeVO>()),
                    try await tx.fetchOne(RecordQuery<NodeVO>().order(by: .x)), try await tx.lastSequence(),
                    try await tx.fetchValue("SELECT y FROM nodes WHERE name = 'B'"),
                    try await tx.fetchRows("SELECT name FROM nodes WHERE x > :x", named: ["x": 4]).count
                )
            }
            #expect(seen.0?.name == "A" && seen.0?.x == 3 && seen.0?.y == 1, "update(columns:) wrote x only")
            #expect(seen.1 == 2)
            #expect(seen.2?.name == "A")
            #expect(seen.3 == sequence)
            #expect(seen.4 == .real(6))
            #expect(seen.5 == 1)
            let readOnly = await #expect(throws: StoreError.self) {
                try await store.read { tx in try await tx.execute("DELETE FROM nodes") }
            }
            #expect(readOnly?.code == .readOnly)
            // A foreign commit just before an awaited one is published first, then the own one, each once.
            try await server.psql.execute("INSERT INTO nodes (name, x, y) VALUES ('foreign', 0, 0)")
            let own = try #require(try await store.writeReturningCommit { tx in try await tx.insert(NodeVO(name: "own", x: 0, y: 0)) }.sequence)
            #expect(log.commits.map(\.sequence) == [sequence, own - 1, own])
            try await Task.sleep(for: .milliseconds(300))  // the feed sees the same commits: none comes twice
            #expect(log.commits.map(\.sequence) == [sequence, own - 1, own])
        }
    }

    @Test func aThrowingAwaitedClosureRollsBackAndASavepointKeepsTheRest() async throws {
        try await ObservedServer.withAsync { server in
            let store = try server.openStore()
            defer { store.close() }
            struct Refused: Error {}
            let before = try await store.read { tx in try await tx.lastSequence() }
            await #expect(throws: Refused.self) {
                try await store.write { tx in
                    try await tx.insert(NodeVO(name: "lost", x: 0, y: 0))
                    throw Refused()
                }
            }
            let failing = await #expect(throws: StoreError.self) {
                try await store.write { tx in try await tx.execute("INSERT INTO no_such_table VALUES (1)") }
            }
            #expect(failing != nil)
            try await store.write { tx in
                try await tx.insert(NodeVO(name: "kept", x: 0, y: 0))
                await #expect(throws: Refused.self) {
                    try await tx.savepoint { tx in
                        try await tx.insert(NodeVO(name: "undone", x: 0, y: 0))
                        throw Refused()
                    }
                }
                try await tx.insert(NodeVO(name: "after", x: 0, y: 0))
            }
            let names = try await store.read { tx in try await tx.fetchAll(RecordQuery<NodeVO>().order(by: .id)).map(\.name) }
            #expect(names == ["kept", "after"])
            #expect(try await store.read { tx in try await tx.lastSequence() } == before + 1, "rolled-back writes took no number")
            // The pool's connections came back usable after the failures.
            #expect(try await store.read { tx in try await tx.count(RecordQuery<NodeVO>()) } == 2)
        }
    }

    @Test func writingInsideAnAwaitedWriteIsMisuse() async throws {
        try await ObservedServer.withAsync { server in
            let store = try server.openStore()
            defer { store.close() }
            let nested = await #expect(throws: StoreError.self) {
                try await store.write { _ in try await store.write { tx in try await tx.insert(NodeVO(name: "n", x: 0, y: 0)) } }
            }
            #expect(nested?.code == .transactionMisuse)
            let blocking = await #expect(throws: StoreError.self) {
                try await store.write { _ in try store.write { tx in try tx.insert(NodeVO(name: "n", x: 0, y: 0)) } }
            }
            #expect(blocking?.code == .transactionMisuse)
            #expect(try await store.read { tx in try await tx.count(RecordQuery<NodeVO>()) } == 0)
        }
    }

    @Test func awaitedWritesWaitingForALockHoldNoThread() async throws {
        // Eight writers on one thread all wait at the server at once: none of them holds the thread while it waits (a
        // blocking statement would, and the rest could not even send theirs). Each waits at most 20 s for the lock, so
        // that writers blocking the thread would fail the test rather than hang it.
        let writers = 8
        try await ObservedServer.withAsync { server in
            let store = try server.openStore { $0.maximumConnectionCount = writers }
            defer { store.close() }
            let id = try #require(try await store.write { tx in try await tx.insert(NodeVO(name: "hot", x: 0, y: 0)) }.id)
            // pg_stat_activity is read outside the lock holder's transaction (a transaction sees one snapshot of it).
            let watcher = try await ServerConnection.connect(server.url)
            defer { watcher.close() }
            try await server.psql.execute("BEGIN")
            try await server.psql.execute("UPDATE nodes SET y = 1 WHERE id = $1", [.integer(id)])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<writers {
                    group.addTask { () async throws -> Void in
                        _ = try await store.write { tx in
                            try await tx.limitLockWaits(to: .seconds(20))
                            return try await tx.execute("UPDATE nodes SET x = x + 1 WHERE id = ?", [id])
                        }
                    }
                }
                let waiting = try await waitUntilAwaited {
                    try await awaitedInteger(
                        watcher, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
                        == writers
                }
                try await server.psql.execute("COMMIT")
                try await group.waitForAll()
                #expect(waiting, "\(writers) writers waited for the lock at once")
            }
            #expect(try await store.read { tx in try await tx.fetch(NodeVO.self, key: id) }?.x == Double(writers))
        }
    }

    /// The `async` forms with a synchronous closure, as on SQLite: a call cancelled while it waits for a pooled
    /// connection ends at once and its closure never runs; a call that has its connection runs to the end.
    @Test func aSendableWriteOrReadCancelledWhileWaitingForAConnectionNeverRuns() async throws {
        try await ObservedServer.withAsync { server in
            let store = try server.openStore { $0.maximumConnectionCount = 1 }
            defer { store.close() }
            let release = DispatchSemaphore(value: 0)
            let entered = Locked(false)
            let holder = ThreadJob {
                Result {
                    try store.write(origin: nil) { tx in
                        entered.value = true
                        release.wait(seconds: 60)
                        try tx.insert(NodeVO(name: "holder", x: 0, y: 0))
                    }
                }
            }
            try await waitUntil("the holding write to start") { entered.value }
            let bodiesRun = Locked(0)
            let queuedWrite = Task(executorPreference: TestThread.executor) {
                try await store.write(origin: nil) { tx in
                    bodiesRun.withLock { $0 += 1 }
                    return try tx.insert(NodeVO(name: "cancelled", x: 0, y: 0))
                }
            }
            let queuedRead = Task(executorPreference: TestThread.executor) {
                try await store.read { tx in
                    bodiesRun.withLock { $0 += 1 }
                    return try tx.count(RecordQuery<NodeVO>())
                }
            }
            try await waitUntil("both calls to wait for the connection") { store.callsWaitingForAConnection == 2 }
            queuedWrite.cancel()
            queuedRead.cancel()
            // Both end while the one connection is still held: they did not wait for their turn.
            await #expect(throws: CancellationError.self) { try await queuedWrite.value }
            await #expect(throws: CancellationError.self) { try await queuedRead.value }
            #expect(store.callsWaitingForAConnection == 0)

            release.signal()
            _ = try #require(holder.wait(seconds: 60)).get()

            // A call that got its connection runs to the end, cancelled or not.
            let goOn = DispatchSemaphore(value: 0)
            let inBody = Locked(false)
            let started = Task(executorPreference: TestThread.executor) {
                try await store.write(origin: nil) { tx in
                    inBody.value = true
                    goOn.wait(seconds: 60)
                    return try tx.insert(NodeVO(name: "started", x: 0, y: 0))
                }
            }
            try await waitUntil("the started write's closure to run") { inBody.value }
            started.cancel()
            goOn.signal()
            #expect(try await started.value.name == "started")
            #expect(bodiesRun.value == 0)
            let names = try await store.read { tx in try tx.fetchAll(RecordQuery<NodeVO>().order(by: "name")).map(\.name) }
            #expect(names == ["holder", "started"])
        }
    }

    @Test func anAwaitedCheckOutWaitsIsHandedOverTimesOutAndIsCancelled() async throws {
        try await checkOutWaitsIsHandedOverTimesOutAndIsCancelled()
    }

    private func checkOutWaitsIsHandedOverTimesOutAndIsCancelled() async throws {
        guard let url = TestServer.url else { throw TestServer.unavailable }
        let pool = ServerConnectionPool(url: url, maximum: 1, logger: .init(label: "test"), checkOutTimeout: .milliseconds(300))
        defer { pool.close() }
        let holder = HeldConnection(pool)
        let held = try await holder.take()
        // Timed out: busy, and the slot is not lost.
        let timedOut = await #expect(throws: StoreError.self) { try await pool.withConnection { try await $0.query("SELECT 1") } }
        #expect(timedOut?.code == .busy)
        // Cancelled while waiting.
        let cancelled = Task(executorPreference: TestThread.executor) { try await pool.withConnection { try await $0.query("SELECT pg_backend_pid()").scalar } }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        // Handed over: a waiter gets the connection the holder gives back.
        let waiter = Task(executorPreference: TestThread.executor) { try await pool.withConnection { try await $0.query("SELECT pg_backend_pid()").scalar } }
        try await Task.sleep(for: .milliseconds(50))
        holder.giveBack()
        #expect(try await waiter.value == held)
        // Closing fails a waiting caller.
        let second = HeldConnection(pool)
        _ = try await second.take()
        let failed = Task(executorPreference: TestThread.executor) { try await pool.withConnection { try await $0.query("SELECT 1") } }
        try await Task.sleep(for: .milliseconds(50))
        pool.close()
        let closed = await #expect(throws: StoreError.self) { try await failed.value }
        #expect(closed?.code == .transactionMisuse)
        second.giveBack()
    }

    @Test func anAwaitedStatementOnAConnectionThatDiesFailsAsUnavailable() async throws {
        try await statementOnAConnectionThatDiesFails()
    }

    private func statementOnAConnectionThatDiesFails() async throws {
        guard let url = TestServer.url else { throw TestServer.unavailable }
        let connection = try await ServerConnection.connect(url)
        defer { connection.close() }
        let admin = try await ServerConnection.connect(url)
        defer { admin.close() }
        let pid = try #require(try await connection.query("SELECT pg_backend_pid()").scalar)
        let sleeping = Task(executorPreference: TestThread.executor) { try await connection.query("SELECT pg_sleep(30)") }
        let started = try await waitUntilAwaited {
            try await awaitedInteger(admin, "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'") == 1
        }
        #expect(started)
        try await admin.execute("SELECT pg_terminate_backend($1::int)", [pid])
        let lost = await #expect(throws: StoreError.self) { try await sleeping.value }
        #expect(lost?.code == .unavailable)
    }
}

/// A connection of a pool held by a task until ``giveBack()``: the test's way of keeping the pool busy.
private final class HeldConnection: Sendable {
    private let pool: ServerConnectionPool
    private let release = AsyncStream<Void>.makeStream()
    private let task = Mutex<Task<Void, any Error>?>(nil)

    init(_ pool: ServerConnectionPool) { self.pool = pool }

    /// Checks a connection out and returns its server process id; it stays checked out until ``giveBack()``.
    func take() async throws -> DatabaseValue? {
        let (taken, handOver) = AsyncStream<DatabaseValue?>.makeStream()
        let stream = release.stream
        task.withLock {
            $0 = Task(executorPreference: TestThread.executor) { [pool] in
                try await pool.withConnection { connection in
                    handOver.yield(try await connection.query("SELECT pg_backend_pid()").scalar)
                    for await _ in stream { break }
                }
            }
        }
        for await pid in taken { return pid }
        throw StoreError(.busy, "the connection was not taken")
    }

    /// Gives the connection back to the pool.
    func giveBack() { release.continuation.yield() }
}

/// Polls `condition` every 10 ms for at most 30 s, suspended in between; whether it held.
func waitUntilAwaited(_ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return false
}
#endif
