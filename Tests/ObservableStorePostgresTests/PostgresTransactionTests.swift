#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import StoreTestSupport
import TestScheduling
import Testing

private struct Failure: Error {}

/// Write and read transactions on a real server: commit, rollback, savepoints, origin, sequences, raw SQL.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresTransactionTests {
    @Test func aThrowingWriteLeavesNothingAndLogsNoCommit() throws {
        try TestServer.withStore { store, url in
            #expect(throws: Failure.self) {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "gone", x: 0, y: 0))
                    throw Failure()
                }
            }
            try withAdmin(url) { admin throws in
                #expect(try integer(admin, "SELECT count(*) FROM nodes") == 0)
                #expect(try integer(admin, "SELECT count(*) FROM _store_commits") == 0)
                #expect(try integer(admin, "SELECT count(*) FROM _store_changes") == 0)
            }
            #expect(try store.lastSequence() == 0)
            // The connection went back to the pool usable.
            try store.repository(NodeVO.self).insert(NodeVO(name: "kept", x: 0, y: 0))
            #expect(try store.lastSequence() == 1)
        }
    }

    @Test func aSavepointRollsBackOnlyItsOwnWork() throws {
        try TestServer.withStore { store, url in
            let written = try store.writeReturningCommit { tx in
                try tx.insert(NodeVO(name: "before", x: 0, y: 0))
                #expect(throws: Failure.self) {
                    try tx.savepoint { inner in
                        try inner.insert(NodeVO(name: "undone", x: 0, y: 0))
                        throw Failure()
                    }
                }
                // A failing statement inside a savepoint leaves the transaction usable.
                let failed = #expect(throws: StoreError.self) {
                    try tx.savepoint { try $0.insert(NodeVO(name: "bad", x: 0, y: 0, width: -1)) }
                }
                #expect(failed?.code == .constraint)
                let nested = try tx.savepoint { outer in
                    try outer.savepoint { try $0.insert(NodeVO(name: "nested", x: 0, y: 0)) }
                }
                try tx.insert(NodeVO(name: "after", x: 0, y: 0))
                return nested.name
            }
            #expect(written.value == "nested")
            let names = try store.read { try $0.fetchAll(RecordQuery<NodeVO>().order(by: .name)) }.map(\.name)
            #expect(names == ["after", "before", "nested"])
            try withAdmin(url) { admin throws in
                #expect(try integer(admin, "SELECT change_count FROM _store_commits") == 3)
                #expect(try integer(admin, "SELECT count(*) FROM _store_changes") == 3)
            }
        }
    }

    @Test func originAndSequenceAreRecordedWithTheCommit() throws {
        try TestServer.withStore { store, url in
            let first = try store.writeReturningCommit(origin: "canvas") { try $0.insert(NodeVO(name: "a", x: 0, y: 0)) }
            let second = try store.writeReturningCommit { try $0.insert(NodeVO(name: "b", x: 0, y: 0)) }
            let nothing = try store.writeReturningCommit { try $0.fetchAll(RecordQuery<NodeVO>()).count }
            #expect(first.sequence == 1)
            #expect(second.sequence == 2)
            #expect(nothing.sequence == nil)
            #expect(nothing.value == 2)
            #expect(try store.lastSequence() == 2)
            try withAdmin(url) { admin throws in
                let rows = try admin.query("SELECT seq, origin, tables, change_count FROM _store_commits ORDER BY seq").rows
                #expect(rows == [
                    [.integer(1), .text("canvas"), .text("nodes"), .integer(1)],
                    [.integer(2), .null, .text("nodes"), .integer(1)],
                ])
            }
            try store.repository(NodeVO.self, origin: "repo").insert(NodeVO(name: "c", x: 0, y: 0))
            try withAdmin(url) { admin throws in
                #expect(try admin.query("SELECT origin FROM _store_commits WHERE seq = 3").scalar == .text("repo"))
            }
        }
    }

    @Test func theOriginOfOneConnectionsWritesFollowsEachWriteAlsoAfterARollback() throws {
        var configuration = PostgresStoreConfiguration()
        configuration.maximumConnectionCount = 1  // every write on the same connection
        try TestServer.withStore(configuration) { store, url in
            func insert(_ name: String, origin: String?) throws {
                try store.write(origin: origin) { tx in try tx.insert(NodeVO(name: name, x: 0, y: 0)) }
            }
            func rollBack(origin: String?) {
                #expect(throws: Failure.self) {
                    try store.write(origin: origin) { tx in
                        try tx.insert(NodeVO(name: "gone", x: 0, y: 0))
                        throw Failure()
                    }
                }
            }
            try insert("a", origin: "canvas")
            try insert("b", origin: nil)
            rollBack(origin: "canvas")  // the connection's origin goes back to none
            try insert("c", origin: "canvas")
            try insert("d", origin: "canvas")
            rollBack(origin: nil)  // and back to canvas
            try insert("e", origin: nil)
            try withAdmin(url) { admin throws in
                try admin.execute("INSERT INTO nodes (name, x, y) VALUES ('psql', 0, 0)")
                let origins = try admin.query("SELECT origin FROM _store_commits ORDER BY seq").rows.map { $0[0] }
                #expect(origins == [.text("canvas"), .null, .text("canvas"), .text("canvas"), .null, .null])
            }
        }
    }

    @Test func misuseIsRefused() throws {
        try TestServer.withStore { store, _ in
            let nested = #expect(throws: StoreError.self) {
                try store.write { _ in try store.write { _ in } }
            }
            #expect(nested?.code == .transactionMisuse)
            let readOnly = #expect(throws: StoreError.self) {
                try store.read { try $0.insert(NodeVO(name: "no", x: 0, y: 0)) }
            }
            #expect(readOnly?.code == .readOnly)
            var kept: PostgresTransaction?
            try store.write { kept = $0 }
            let ended = #expect(throws: StoreError.self) { try kept?.fetchValue("SELECT 1") }
            #expect(ended?.code == .transactionMisuse)
            // PostgreSQL aborts the whole transaction on a failed statement: going on is refused, and nothing is kept.
            let aborted = #expect(throws: StoreError.self) {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "first", x: 0, y: 0))
                    _ = try? tx.execute("INSERT INTO nowhere VALUES (1)")
                    try tx.insert(NodeVO(name: "second", x: 0, y: 0))
                }
            }
            #expect(aborted?.code == .transactionMisuse)
            #expect(try store.repository(NodeVO.self).count() == 0)
        }
    }

    @Test func rawSQLTakesEitherPlaceholderStyle() throws {
        try TestServer.withStore { store, _ in
            let changed = try store.write { tx in
                try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, ?, ?), ($$a ? b$$, 2, 0)", ["q", 1.0, 0.0])
                    + tx.execute("UPDATE nodes SET color = $1 WHERE x > $2", ["#111111", 0])
            }
            #expect(changed == 4)
            try store.write { tx in
                try tx.execute("CREATE TABLE notes (id bigint PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'a;b?')")
            }
            try store.read { tx in
                #expect(try tx.fetchValue("SELECT body FROM notes WHERE id = ? AND body <> '?'", [1]) == .text("a;b?"))
                let rows = try tx.fetchRows("SELECT name, x FROM nodes WHERE name = ? -- a comment?\n ORDER BY x", ["q"])
                #expect(rows == [Row(columns: ["name", "x"], values: [.text("q"), .real(1)])])
                struct Pair: Decodable, Equatable { var name: String; var color: String }
                let pairs = try tx.fetchAll(Pair.self, sql: "SELECT name, color FROM nodes ORDER BY x")
                #expect(pairs == [Pair(name: "q", color: "#111111"), Pair(name: "a ? b", color: "#111111")])
                #expect(try tx.fetchValue("SELECT 1 WHERE false") == nil)
            }
            let bad = #expect(throws: StoreError.self) { try store.read { try $0.fetchRows("SELEC 1") } }
            #expect(bad?.code == .invalidInput)
        }
    }

    @Test func asyncFormsSuspendTheCaller() async throws {
        // An async test awaits the forms directly, as a caller on the concurrency pool would.
        guard let server = TestServer.url else { throw TestServer.unavailable }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try await ServerConnection.connect(server)
        defer { admin.close() }
        try await admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
        let store = try PostgresStore(url: server.with(database: name).text)
        defer { store.close() }
        var sequences: [Int64] = []
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await store.writeReturningCommit { try $0.insert(NodeVO(name: "n\(index)", x: Double(index), y: 0)) }.sequence
                }
            }
            for try await sequence in group { sequences.append(sequence ?? 0) }
        }
        let count = try await store.read { try $0.count(RecordQuery<NodeVO>()) }
        let first = try await store.write(origin: "async") { try $0.fetchOne(RecordQuery<NodeVO>().order(by: .x))?.name }
        #expect(sequences.sorted() == Array(1...8))
        #expect(count == 8)
        #expect(first == "n0")
    }

    @Test func aDeadlockIsReportedAsBusy() throws {
        try TestServer.withStore { store, _ in
            let users = store.repository(UserInfo.self)
            try users.insertAll([UserInfo(id: "a", name: "A"), UserInfo(id: "b", name: "B")])
            let bothLocked = DispatchSemaphore(value: 0)
            let firstLocked = DispatchSemaphore(value: 0)
            let job = ThreadJob { () -> StoreError.Code? in
                do {
                    try store.write { tx in
                        try tx.execute("UPDATE user_info SET name = 'B1' WHERE id = 'b'")
                        firstLocked.signal()
                        bothLocked.wait(seconds: helperWaitSeconds)
                        try tx.execute("UPDATE user_info SET name = 'A1' WHERE id = 'a'")
                    }
                    return nil
                } catch {
                    return (error as? StoreError)?.code
                }
            }
            var mine: StoreError.Code?
            do {
                try store.write { tx in
                    try tx.execute("UPDATE user_info SET name = 'A2' WHERE id = 'a'")
                    try firstLocked.waitForSignal("the other writer's lock")
                    bothLocked.signal()
                    try tx.execute("UPDATE user_info SET name = 'B2' WHERE id = 'b'")
                }
            } catch {
                mine = (error as? StoreError)?.code
            }
            let theirs = try job.result("the other writer")
            #expect([mine, theirs].compactMap { $0 } == [.busy], "exactly one of the two writes fails, as busy")
        }
    }
}
#endif
