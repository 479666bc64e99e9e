#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import Synchronization
import TestScheduling
import Testing

/// Many writers on one database at once — stores standing for several hosts, with sleeps and rollbacks inside their
/// transactions, and `pgbench` as a foreign writer in another process through the capture triggers — while a listener
/// on yet another store receives every commit exactly once, in sequence order, with no gap.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerManyWritersTests {
    @Test func everyCommitOfEveryWriterArrivesOnceInOrderWithNoGap() throws {
        try ObservedServer.with { server in
            let listening = try server.openStore()
            defer { listening.close() }
            let log = EventLog()
            let token = listening.listen("all") { log.record($0) }
            defer { token.cancel() }

            // pgbench: 2 clients × 60 transactions, each an insert and an update of what it inserted.
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("pgbench-\(UUID().uuidString).sql")
            try """
                \\set x random(1, 1000)
                BEGIN;
                INSERT INTO nodes (name, x, y) VALUES ('pgbench', :x, 0);
                UPDATE nodes SET y = y + 1 WHERE id = (SELECT max(id) FROM nodes WHERE name = 'pgbench');
                END;
                """.write(to: script, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: script) }
            let pgbench = try RunningProcess(
                executable: URL(fileURLWithPath: "/usr/bin/env"),
                ["pgbench", "-n", "-c", "2", "-t", "60", "-f", script.path, server.url.text])

            // Two more stores (two "hosts"), two writer threads each: 25 writes per thread, every fifth rolled back,
            // random sleeps inside the transactions so that they overlap and commit out of their start order.
            let writers = try [server.openStore(), server.openStore()]
            defer { for store in writers { store.close() } }
            let committed = Mutex<[Int64]>([])
            let failures = Mutex<[String]>([])
            let group = DispatchGroup()
            for (storeIndex, store) in writers.enumerated() {
                for thread in 0..<2 {
                    group.enter()
                    Thread.detachNewThread {
                        defer { group.leave() }
                        for index in 0..<25 {
                            let origin = "host\(storeIndex)"
                            do {
                                let written = try store.writeReturningCommit(origin: origin) { tx in
                                    _ = try tx.insert(NodeVO(name: "\(origin)-\(thread)-\(index)", x: Double(index), y: 0))
                                    Thread.sleep(forTimeInterval: Double.random(in: 0...0.004))
                                    if index % 5 == 4 { throw StoreError(.invalidInput, "rolled back on purpose") }
                                }
                                if let sequence = written.sequence { committed.withLock { $0.append(sequence) } }
                            } catch let error as StoreError where error.message == "rolled back on purpose" {
                                continue
                            } catch {
                                failures.withLock { $0.append("\(error)") }
                            }
                        }
                    }
                }
            }
            #expect(group.wait(timeout: .now() + 90) == .success, "the writers finished")
            let result = pgbench.wait(timeout: 90)
            #expect(result.status == 0, "pgbench: \(result.stderr)")
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(committed.withLock { $0 }.count == 4 * 20)

            let total = try integer(server.psql, "SELECT count(*) FROM _store_commits")
            #expect(try integer(server.psql, "SELECT max(seq) FROM _store_commits") == total, "max(seq) = count(*)")
            #expect(total == 4 * 20 + 2 * 60)
            try log.waitForCommits(Int(total), seconds: 30)
            Thread.sleep(forTimeInterval: 0.5)  // anything delivered twice would arrive by now
            let received = log.commits
            #expect(received.map(\.sequence) == Array(1...total), "every commit once, in sequence order, no gap")
            #expect(received.filter { $0.origin == nil }.count == 2 * 60, "pgbench's commits, with no origin")
            #expect(received.filter { $0.origin == "host0" }.count == 40)
            let pgbenchCommit = try #require(received.first { $0.origin == nil })
            #expect(pgbenchCommit.changes.map(\.operation) == [.insert, .update])
            // No rolled-back write left a trace.
            #expect(try integer(server.psql, "SELECT count(*) FROM nodes WHERE name LIKE 'host%'") == 80)
            #expect(try integer(server.psql, "SELECT count(*) FROM nodes WHERE name LIKE 'host%' AND split_part(name, '-', 3)::int % 5 = 4") == 0)
        }
    }
}
#endif
