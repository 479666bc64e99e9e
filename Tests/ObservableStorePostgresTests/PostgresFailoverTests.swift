#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
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
}
#endif
