#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import Synchronization
import TestScheduling
import Testing

/// Bind-and-fire, observed values and exactly-once acknowledgement through the store's own writes on PostgreSQL.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerBindingTests {
    @Test func bindAndFireWithARacingWriterHasNoGapAndNoDuplicate() throws {
        try ObservedServer.with { server in
            let store = try server.openStore()
            defer { store.close() }
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            let stop = Atomic<Bool>(false)
            let writes = Atomic<Int>(0)
            let finished = Atomic<Bool>(false)
            let writer = Thread {
                defer { finished.store(true, ordering: .sequentiallyConsistent) }
                var x = 1.0
                while !stop.load(ordering: .relaxed) {
                    try? store.write { tx in try tx.update(NodeVO(id: node.id, name: "n", x: x, y: 0)) }
                    writes.add(1, ordering: .relaxed)
                    x += 1
                }
            }
            writer.start()
            try waitUntil { writes.load(ordering: .relaxed) >= 3 }
            let seen = Mutex<[Double]>([])
            let token = try store.bindAndFire("detail", NodeVO.self, key: node.id!) { node in
                seen.withLock { $0.append(node?.x ?? -1) }
            }
            defer { token.cancel() }
            try waitUntil { writes.load(ordering: .relaxed) >= 40 }
            stop.store(true, ordering: .relaxed)
            try waitUntil { finished.load(ordering: .sequentiallyConsistent) }  // its last write is committed
            let final = try #require(try store.read { try $0.fetch(NodeVO.self, key: node.id!) }?.x)
            try waitUntil { seen.withLock { $0.last } == final }
            let values = seen.withLock { $0 }
            // Each write adds 1 to x: the values seen are consecutive from the first read on.
            #expect(values == Array(stride(from: values[0], through: final, by: 1)), "no gap, no duplicate")
        }
    }

    @Test func observedValuesFollowEveryWriter() async throws {
        try await ObservedServer.withAsync { server in
            let store = try server.openStore()
            defer { store.close() }
            let values = try store.values(of: RecordQuery<NodeVO>().order(by: "name"))
            let received = Mutex<[(sequence: Int64, names: [String])]>([])
            // Read by a task of its own, so that every wait below has a deadline.
            let task = Task {
                for try await element in values {
                    received.withLock { $0.append((element.sequence, element.value.map(\.name))) }
                }
            }
            defer { task.cancel() }
            try await waitForValue("the first value") { !received.withLock { $0.isEmpty } }
            #expect(received.withLock { $0.first?.names } == [])
            let sequence = try #require(try server.commit("INSERT INTO nodes (name, x, y) VALUES ('from psql', 1, 2)"))
            try await waitForValue("the value at the psql commit") {
                (received.withLock { $0.last?.sequence } ?? 0) >= sequence
            }
            let latest = received.withLock { $0.last }
            #expect(latest?.names == ["from psql"])
            #expect(latest?.sequence == sequence)
        }
    }

    /// Sleeps 5 ms at a time until `condition` holds; throws naming `what` after 20 s (without blocking a thread).
    private func waitForValue(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw StoreError(.busy, "timed out after 20 s waiting for \(what)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func acknowledgingInTheStoresWriteHappensOnce() throws {
        try ObservedServer.with { server in
            try server.psql.execute("CREATE TABLE outbox (seq bigint PRIMARY KEY)")
            let store = try server.openStore()
            defer { store.close() }
            let token = try store.listenDurably("outbox", filter: .table("nodes")) { event in
                guard case .commit(let delivery) = event else { return }
                try store.write { tx in
                    try tx.execute("INSERT INTO outbox (seq) VALUES (?)", [delivery.commit.sequence])
                    try delivery.acknowledge(in: tx)
                }
            }
            defer { token.cancel() }
            var written: [Int64] = []
            for index in 0..<5 {
                let commit = try store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
                written.append(try #require(commit.sequence))
            }
            try waitUntil { try server.psql.query("SELECT count(*) FROM outbox").scalar == .integer(5) }
            Thread.sleep(forTimeInterval: 0.5)
            #expect(try server.psql.query("SELECT array_agg(seq ORDER BY seq)::text FROM outbox").scalar
                == .text("{" + written.map(String.init).joined(separator: ",") + "}"))
            #expect(try store.durableListeners().first?.cursor == written.last)
        }
    }
}
#endif
