#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import Synchronization
import TestScheduling
import Testing

/// A store whose URL lists a primary and its standby: it connects to the host that takes writes, fails writes clearly
/// (and retryably) while none does, and writes and delivers on the promoted standby with no gap in the sequence.
/// Each test runs its own two clusters on loopback ports.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresFailoverTests {
    @Test func aConnectionGoesToTheHostThatTakesWritesAndNamesEachRefusal() throws {
        let replicas = try PostgresReplicaSet()
        defer { replicas.remove() }
        try replicas.startStandby()
        let standbyFirst = "postgres://postgres@127.0.0.1:\(replicas.standbyPort),127.0.0.1:\(replicas.primaryPort)/postgres"
        let writable = try ServerConnection.connect(try PostgresURL(standbyFirst))
        #expect(try writable.query("SELECT pg_is_in_recovery()").scalar == .integer(0), "read-write by default with two hosts")
        writable.close()
        let any = try ServerConnection.connect(try PostgresURL(standbyFirst + "?target_session_attrs=any"))
        #expect(try any.query("SELECT pg_is_in_recovery()").scalar == .integer(1), "any: the first host that answers")
        any.close()

        try replicas.killPrimary()
        let error = #expect(throws: StoreError.self) { try ServerConnection.connect(try PostgresURL(standbyFirst)) }
        #expect(error?.code == .unavailable)
        #expect(error?.isRetryable == true)
        let message = error?.message ?? ""
        #expect(message.contains("127.0.0.1:\(replicas.standbyPort)") && message.contains("read-only"), "\(message)")
        #expect(message.contains("127.0.0.1:\(replicas.primaryPort)"), "\(message)")
    }

    @Test func afterAFailoverWritesResumeOnThePromotedStandbyAndListenersMissNothing() throws {
        let replicas = try PostgresReplicaSet()
        defer { replicas.remove() }
        let store = try PostgresStore(url: replicas.url)
        defer { store.close() }
        let log = EventLog()
        let token = store.listen("all") { log.record($0) }
        defer { token.cancel() }
        let nodes = store.repository(NodeVO.self)
        for index in 0..<5 { try nodes.insert(NodeVO(name: "before \(index)", x: 0, y: 0)) }
        try replicas.startStandby()
        for index in 5..<10 { try nodes.insert(NodeVO(name: "before \(index)", x: 0, y: 0)) }
        try log.waitForCommits(10, seconds: 30)
        try replicas.waitForStandbyToCatchUp()

        try replicas.killPrimary()
        let lost = ContinuousClock.now
        // No host takes writes: a write fails at once, retryably, and leaves nothing.
        let refused = #expect(throws: StoreError.self) { try nodes.insert(NodeVO(name: "during", x: 0, y: 0)) }
        #expect(refused?.code == .unavailable && refused?.isRetryable == true, "\(String(describing: refused))")

        try replicas.promoteStandby()
        var written: CommittedWrite<NodeVO>?
        let deadline = Date(timeIntervalSinceNow: 30)
        while written == nil, Date() < deadline {
            do {
                written = try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "after", x: 0, y: 0)) }
            } catch let error as StoreError where error.isRetryable {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let firstWrite = ContinuousClock.now - lost
        let after = try #require(written, "no write succeeded on the promoted standby in 30 s")
        #expect(after.sequence == 11, "the sequence goes on from the last commit the standby has")
        try log.waitForCommits(11, seconds: 30)
        let sequences = log.commits.map(\.sequence)
        #expect(sequences == Array(1...11), "every commit once, in order, across the failover: \(sequences)")
        #expect(log.commits.last?.changes.first?.new?["name"] == .text("after"))
        #expect(try nodes.fetchAll().filter { $0.name == "during" }.isEmpty)
        print("failover: primary lost → first write on the promoted standby in \(firstWrite)")
    }

    /// With a synchronous standby, the primary killed under a steady load of two writers: every write that returned is
    /// on the promoted standby, every write that failed said so (`unavailable`, or `commitUnknown` for one whose COMMIT
    /// was on its way), the writers go on, and a live and a durable listener get every commit in order with no gap
    /// (the durable one at least once: a commit delivered just before the kill, whose cursor did not reach the standby,
    /// may come again).
    @Test func withASynchronousStandbyNoAcknowledgedWriteIsLost() throws {
        let replicas = try PostgresReplicaSet()
        defer { replicas.remove() }
        let store = try PostgresStore(url: replicas.url)
        defer { store.close() }
        try replicas.startStandby()
        try replicas.makeStandbySynchronous()
        let live = EventLog()
        let liveToken = store.listen("all", filter: .table("nodes")) { live.record($0) }
        defer { liveToken.cancel() }
        let durable = DurableLog()
        let durableToken = try store.listenDurably("mailer", filter: .table("nodes")) { durable.record($0) }
        defer { durableToken.cancel() }

        let acknowledged = Mutex<[String]>([])
        let failures = Mutex<[StoreError.Code]>([])
        let stop = Atomic<Bool>(false)
        let writers = (0..<2).map { writer in
            Thread {
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    let name = "w\(writer)-\(index)"
                    index += 1
                    do {
                        try store.write { tx in _ = try tx.insert(NodeVO(name: name, x: 0, y: 0)) }
                        acknowledged.withLock { $0.append(name) }
                    } catch let error as StoreError {
                        failures.withLock { $0.append(error.code) }
                        Thread.sleep(forTimeInterval: 0.02)
                    } catch {
                        failures.withLock { $0.append(.internal) }
                    }
                }
            }
        }
        for writer in writers { writer.start() }
        try waitUntil("the writers to commit before the loss") { acknowledged.withLock { $0.count } >= 40 }
        try replicas.killPrimary()
        try replicas.promoteStandby()
        let afterLoss = acknowledged.withLock { $0.count }
        try waitUntil(timeout: 30, "the writers to commit on the promoted standby") { acknowledged.withLock { $0.count } >= afterLoss + 40 }
        stop.store(true, ordering: .relaxed)
        try waitUntil("the writers to stop") { writers.allSatisfy(\.isFinished) }

        let stored = Set(try store.repository(NodeVO.self).fetchAll().map(\.name))
        let missing = acknowledged.withLock { $0 }.filter { !stored.contains($0) }
        #expect(missing.isEmpty, "acknowledged writes lost in the failover: \(missing)")
        let codes = Set(failures.withLock { $0 })
        #expect(codes.isSubset(of: [.unavailable, .commitUnknown]), "writes in flight failed with \(codes)")
        let head = try store.lastSequence()
        try waitUntil(timeout: 30, "the listeners to reach the head \(head)") {
            live.commits.last?.sequence == head && durable.sequences.last == head
        }
        let liveSequences = live.commits.map(\.sequence)
        #expect(liveSequences == Array(1...head), "live: each commit once, in order")
        let durableSequences = durable.sequences
        var seen = Set<Int64>()
        let firstDeliveries = durableSequences.filter { seen.insert($0).inserted }
        #expect(firstDeliveries == Array(1...head), "durable: no gap, in order")
        #expect(durableSequences.count - firstDeliveries.count <= 2, "durable: repeats only at the loss: \(durableSequences.count - firstDeliveries.count)")
        let failed = failures.withLock { $0 }
        print(
            "synchronous failover: \(acknowledged.withLock { $0.count }) writes acknowledged, none lost; \(failed.count) failed "
                + "(\(failed.filter { $0 == .unavailable }.count) unavailable, \(failed.filter { $0 == .commitUnknown }.count) commitUnknown); "
                + "durable repeats \(durableSequences.count - firstDeliveries.count)")
    }
}
#endif
