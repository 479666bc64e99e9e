#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import TestScheduling
import Testing

/// `PostgresStoreConfiguration.lockTimeout`: the `lock_timeout` every session of the store starts with.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresLockTimeoutTests {
    @Test func aRowLockedLongerThanTheLockTimeoutIsBusyAndTheWriteLeavesNothing() throws {
        var configuration = PostgresStoreConfiguration()
        configuration.lockTimeout = .milliseconds(200)
        try TestServer.withStore(configuration) { store, url in
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "held", x: 0, y: 0))
            let sequence = try store.lastSequence()
            try withAdmin(url) { admin in
                try admin.execute("BEGIN")
                try admin.execute("SELECT id FROM nodes WHERE id = $1 FOR UPDATE", [.integer(try #require(node.id))])
                defer { _ = try? admin.execute("ROLLBACK") }
                let started = ContinuousClock.now
                let moved = NodeVO(id: node.id, name: node.name, x: 1, y: node.y)
                let error = try #require(throws: StoreError.self) { try store.write { tx in try tx.update(moved) } }
                #expect(error.code == .busy)
                #expect(ContinuousClock.now - started < .seconds(10))
            }
            #expect(try store.repository(NodeVO.self).fetch(try #require(node.id))?.x == 0)
            #expect(try store.lastSequence() == sequence)
        }
    }

    @Test func withoutALockTimeoutAWriteWaitsForTheLockAndCommits() throws {
        try TestServer.withStore { store, url in
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "held", x: 0, y: 0))
            try withAdmin(url) { admin in
                try admin.execute("BEGIN")
                try admin.execute("SELECT id FROM nodes WHERE id = $1 FOR UPDATE", [.integer(try #require(node.id))])
                let moved = NodeVO(id: node.id, name: node.name, x: 1, y: node.y)
                let update = ThreadJob { Result { try store.write { tx in try tx.update(moved) } } }
                // Still waiting after longer than the other test's lock timeout: the server's default is no limit.
                #expect(update.wait(seconds: 0.5) == nil)
                try admin.execute("COMMIT")
                let result = try update.result("the waiting update", timeout: 30)
                #expect(throws: Never.self) { try result.get() }
            }
            #expect(try store.repository(NodeVO.self).fetch(try #require(node.id))?.x == 1)
        }
    }
}
#endif
