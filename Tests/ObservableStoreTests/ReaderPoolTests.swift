import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore
@testable import StoreSQLite

/// The reader pool lends each connection to one thread at a time, at most `maximum` of them, and never
/// leaves a caller waiting for a connection that will not come.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ReaderPoolTests {
    /// A pool of read-only connections on a fresh WAL database file, its opens counted; the first
    /// `failingOpens` opens throw.
    private func withPool(maximum: Int, failingOpens: Int = 0, _ body: (ReaderPool, Locked<Int>) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            let creator = try Connection(path: path, mode: .readWrite(create: true), busyTimeoutMilliseconds: 1000)
            defer { creator.close() }
            try creator.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            let opens = Locked(0)
            let pool = ReaderPool(maximum: maximum) {
                let attempt = opens.withLock { $0 += 1; return $0 }
                if attempt <= failingOpens { throw StoreError(.cannotOpen, "open #\(attempt) refused") }
                return try Connection(path: path, mode: .readOnly, busyTimeoutMilliseconds: 1000)
            }
            defer { pool.close() }
            try body(pool, opens)
        }
    }

    /// Waits until `count` callers wait for a connection of `pool` (at most 10 s); whether they do.
    private func waitForWaiters(_ count: Int, in pool: ReaderPool) -> Bool {
        // Generous: the callers start on global-queue threads, which come slowly in a loaded run.
        let deadline = ContinuousClock.now + .seconds(60)
        while pool.waitingCount != count {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    /// Runs `body` with a connection of `pool` on another thread; the semaphore is signalled when it is done.
    private func lendElsewhere(_ pool: ReaderPool, _ body: @escaping @Sendable (Connection) -> Void = { _ in }) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if let lease = try? pool.lend() {
                body(lease.connection)
                pool.giveBack(lease)
            }
            done.signal()
        }
        return done
    }

    /// Lends a connection of `pool` on another thread and gives it back at once, noting "lent" or the error's
    /// message in `outcomes`; the semaphore is signalled when it is done.
    private func tryLendingElsewhere(_ pool: ReaderPool, _ outcomes: Recorder<String>) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            do {
                pool.giveBack(try pool.lend())
                outcomes.append("lent")
            } catch {
                outcomes.append((error as? StoreError)?.message ?? "\(error)")
            }
            done.signal()
        }
        return done
    }

    @Test func aCallerWaitsWhileEveryConnectionIsLentThenGetsTheOneGivenBack() throws {
        try withPool(maximum: 1) { pool, opens in
            let first = try pool.lend()
            let firstID = ObjectIdentifier(first.connection)
            let seen = Recorder<ObjectIdentifier>()
            let done = lendElsewhere(pool) { seen.append(ObjectIdentifier($0)) }
            #expect(waitForWaiters(1, in: pool))  // waiting for the one connection
            #expect(seen.all.isEmpty)
            pool.giveBack(first)
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(seen.all == [firstID])
            #expect(opens.value == 1)
        }
    }

    @Test func aReadInsideAReadSharesTheThreadsConnectionWhichStaysLentUntilTheOuterOneEnds() throws {
        try withPool(maximum: 1) { pool, opens in
            let outer = try pool.lend()
            let inner = try pool.lend()  // the same thread: it would otherwise wait for itself
            #expect(inner.isNested && !outer.isNested)
            #expect(inner.connection === outer.connection)
            pool.giveBack(inner)
            let done = lendElsewhere(pool)
            #expect(waitForWaiters(1, in: pool))  // still lent to the outer read
            pool.giveBack(outer)
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(opens.value == 1)
        }
    }

    @Test func aFailedOpenGivesItsPlaceBack() throws {
        try withPool(maximum: 1, failingOpens: 1) { pool, opens in
            let error = #expect(throws: StoreError.self) { try pool.lend() }
            #expect(error?.message == "open #1 refused")
            // The only place is free again: without that this caller would wait forever.
            let done = lendElsewhere(pool)
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(opens.value == 2)
        }
    }

    @Test func closingWakesTheCallersWaitingForAConnectionWithAnError() throws {
        try withPool(maximum: 1) { pool, _ in
            let held = try pool.lend()
            let outcomes = Recorder<String>()
            let waiters = (0..<3).map { _ in tryLendingElsewhere(pool, outcomes) }
            #expect(waitForWaiters(3, in: pool))  // all three wait for the one connection
            pool.close()
            for done in waiters { #expect(done.wait(timeout: .now() + 10) == .success) }
            #expect(outcomes.all == Array(repeating: "the store is closed", count: 3))
            #expect(!held.connection.isClosed)  // lent out: it closes when given back
            pool.giveBack(held)
            #expect(held.connection.isClosed)
            #expect(throws: StoreError.self) { try pool.lend() }
        }
    }

    @Test func aLendAfterClosingThrowsAtOnceEvenWhenEveryConnectionIsLent() throws {
        try withPool(maximum: 1) { pool, opens in
            let held = try pool.lend()
            pool.close()
            let outcome = Recorder<String>()
            let done = tryLendingElsewhere(pool, outcome)
            #expect(done.wait(timeout: .now() + 10) == .success)  // not waiting for the held connection
            #expect(outcome.all == ["the store is closed"])
            pool.giveBack(held)
            #expect(held.connection.isClosed && opens.value == 1)
        }
    }

    /// The connections lent at one moment, under a lock.
    private final class LentConnections: @unchecked Sendable {
        // @unchecked: `lent` and `mostAtOnce` are guarded by `lock`.
        private let lock = NSLock()
        private var lent: Set<ObjectIdentifier> = []
        private var most = 0
        /// Notes `connection` as lent; false if it already was.
        func take(_ connection: Connection) -> Bool {
            lock.withLock {
                defer { most = max(most, lent.count) }
                return lent.insert(ObjectIdentifier(connection)).inserted
            }
        }
        func giveBack(_ connection: Connection) { lock.withLock { _ = lent.remove(ObjectIdentifier(connection)) } }
        var mostAtOnce: Int { lock.withLock { most } }
    }

    @Test func manyThreadsNeverShareAConnectionNorOpenMoreThanTheMaximum() throws {
        try withPool(maximum: 2) { pool, opens in
            let problems = Recorder<String>()
            let lent = LentConnections()
            let group = DispatchGroup()
            for thread in 0..<6 {
                DispatchQueue.global().async(group: group) {
                    for _ in 0..<200 {
                        guard let lease = try? pool.lend() else { return problems.append("thread \(thread): lend failed") }
                        if !lent.take(lease.connection) { problems.append("thread \(thread): a connection lent twice") }
                        // A real query on the connection while it is lent.
                        if (try? lease.connection.prepare("SELECT count(*) FROM t").step()) != true {
                            problems.append("thread \(thread): query failed")
                        }
                        lent.giveBack(lease.connection)
                        pool.giveBack(lease)
                    }
                }
            }
            #expect(group.wait(timeout: .now() + 60) == .success)
            #expect(problems.all.isEmpty)
            #expect(lent.mostAtOnce <= 2)
            #expect(opens.value <= 2)
        }
    }
}
