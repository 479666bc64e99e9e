#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import TestScheduling
import Testing

/// The change log read back and delivered: every writer's commits reach listeners once, in order, with the rows a
/// fetch returns; the feed survives a lost connection.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerFeedTests {
    @Test func aListenerGetsEachCommitOnceInOrderWithOldAndNewRows() throws {
        try ObservedServer.with { server in
            let store = try server.openStore()
            defer { store.close() }
            let log = EventLog()
            let token = store.listen("all") { log.record($0) }
            defer { token.cancel() }
            let s1 = try #require(try server.commit("INSERT INTO nodes (id, name, x, y) VALUES (1, 'a', 1.5, 2), (2, 'b', 3, 4)"))
            let afterInsert = try #require(try server.fetchRow("nodes", id: .integer(1)))
            try server.commit("UPDATE nodes SET name = 'a2', x = 7 WHERE id = 1")
            let afterUpdate = try #require(try server.fetchRow("nodes", id: .integer(1)))
            try server.commit("UPDATE nodes SET id = 10 WHERE id = 2")  // a primary-key change
            try server.commit("UPDATE nodes SET y = y + 1")  // several rows
            // Rolled-back work leaves nothing: a whole transaction, and a savepoint's part of one.
            try server.psql.execute("BEGIN")
            try server.psql.execute("INSERT INTO nodes (id, name, x, y) VALUES (99, 'gone', 0, 0)")
            try server.psql.execute("ROLLBACK")
            try server.commit(
                "INSERT INTO user_info (id, name) VALUES ('me', 'Ada')", "SAVEPOINT s",
                "INSERT INTO user_info (id, name) VALUES ('ghost', 'No')", "ROLLBACK TO SAVEPOINT s")
            let s6 = try #require(try server.commit("DELETE FROM nodes"))  // unfiltered
            try log.waitForCommits(6)
            Thread.sleep(forTimeInterval: 0.3)
            let commits = log.commits
            #expect(commits.map(\.sequence) == Array(s1...s6))
            #expect(commits.allSatisfy { $0.origin == nil })
            #expect(commits[0].changes.map(\.operation) == [.insert, .insert])
            #expect(commits[0].changes[0].new == afterInsert, "the row image equals a fetch")
            #expect(commits[0].changes[0].key == [.integer(1)])
            let update = try #require(commits[1].changes.first)
            #expect(update.operation == .update)
            #expect(update.old == afterInsert)
            #expect(update.new == afterUpdate)
            #expect(update.changedColumns == ["name", "x"])
            #expect(commits[2].changes.map(\.operation) == [.delete, .insert])
            #expect(commits[2].changes.map(\.key) == [[.integer(2)], [.integer(10)]])
            #expect(commits[3].changes.count == 2)
            #expect(commits[3].changes.allSatisfy { $0.operation == .update && $0.changedColumns == ["y"] })
            #expect(commits[4].changes.map(\.key) == [[.text("me")]], "the savepoint's rolled-back row is not there")
            #expect(commits[5].changes.map(\.operation) == [.delete, .delete])
            #expect(commits[5].changes.allSatisfy { $0.new == nil && $0.old != nil })
            #expect(try store.commits(after: s1 - 1).map(\.sequence) == Array(s1...s6))
        }
    }

    @Test func everyValueKindReadsAsAFetchReadsIt() throws {
        try ObservedServer.with { server in
            try server.psql.execute("""
                CREATE TABLE kinds (id text PRIMARY KEY, i bigint, s smallint, d double precision, whole double precision,
                  n numeric, t text, b bytea, at timestamptz, day date, j jsonb, f boolean, u uuid, nothing text)
                """)
            try server.psql.execute("SELECT _store_capture('kinds')")
            let store = try server.openStore()
            defer { store.close() }
            let log = EventLog()
            let token = store.listen("kinds", filter: .table("kinds")) { log.record($0) }
            defer { token.cancel() }
            try server.commit("""
                INSERT INTO kinds VALUES ('k', -9223372036854775808, 7, -1.25, 3, 2.5, 'ünï "q" \\ \u{1F600}', '\\x00ff10',
                  '2026-11-26T13:00:00.123Z', '2026-11-26', '{"a": [1, 2], "b": {"c": "}"}}', true,
                  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', NULL)
                """)
            try log.waitForCommits(1)
            let row = try #require(log.commits.first?.changes.first?.new)
            let fetched = try #require(try server.fetchRow("kinds", id: .text("k")))
            #expect(row == fetched)
            #expect(row["whole"] == .real(3), "an integral double stays a real")
            #expect(row["b"] == .blob(Data([0, 255, 16])))
            #expect(row["at"] == .text("2026-11-26T13:00:00.123Z"))
        }
    }

    @Test func anotherTimeZoneStillGivesTheCoreDateForm() throws {
        try ObservedServer.with { server in
            try server.psql.execute("ALTER DATABASE \(server.url.database) SET timezone TO 'Asia/Kolkata'")
            let store = try server.openStore()
            defer { store.close() }
            let log = EventLog()
            let token = store.listen("all") { log.record($0) }
            defer { token.cancel() }
            let writer = try ServerConnection.connect(server.url)
            defer { writer.close() }
            try writer.execute("INSERT INTO nodes (id, name, x, y, created_at) VALUES (1, 'a', 0, 0, '2026-11-26T13:00:00.123Z')")
            try log.waitForCommits(1)
            #expect(log.commits.first?.changes.first?.new?["created_at"] == .text("2026-11-26T13:00:00.123Z"))
        }
    }

    @Test func theOriginTravelsAndFilters() throws {
        try ObservedServer.with { server in
            let store = try server.openStore()
            defer { store.close() }
            let canvas = EventLog()
            let others = EventLog()
            let tokens = [
                store.listen("canvas", filter: ChangeFilter(origins: ["canvas"])) { canvas.record($0) },
                store.listen("others", filter: ChangeFilter(excludedOrigins: ["canvas"])) { others.record($0) },
            ]
            defer { tokens.forEach { $0.cancel() } }
            try server.commit(origin: "canvas", "INSERT INTO nodes (name, x, y) VALUES ('a', 0, 0)")
            try server.commit(origin: "import", "INSERT INTO nodes (name, x, y) VALUES ('b', 0, 0)")
            try server.commit("INSERT INTO nodes (name, x, y) VALUES ('c', 0, 0)")
            try others.waitForCommits(2)
            try canvas.waitForCommits(1)
            Thread.sleep(forTimeInterval: 0.3)
            #expect(canvas.commits.map(\.origin) == ["canvas"])
            #expect(others.commits.map(\.origin) == ["import", nil])
        }
    }

    @Test func aTruncateMakesListenersReadAgain() throws {
        try ObservedServer.with { server in
            let store = try server.openStore()
            defer { store.close() }
            let log = EventLog()
            let token = store.listen("all", filter: .table("user_info")) { log.record($0) }
            defer { token.cancel() }
            try server.commit("INSERT INTO nodes (name, x, y) VALUES ('a', 0, 0)")
            try server.commit("TRUNCATE nodes")
            try server.commit("INSERT INTO user_info (id, name) VALUES ('me', 'Ada')")
            try waitUntil { log.all.count >= 2 }
            guard case .resync(.externalChange) = log.all[0] else {
                Issue.record("expected a resync first, got \(log.all)")
                return
            }
            #expect(log.commits.map { $0.changes.map(\.table) } == [["user_info"]])
        }
    }

    @Test func ownCommitsReachImmediateListenersBeforeTheWriteReturnsAndOnce() throws {
        try ObservedServer.with { server in
            let store = try server.openStore()
            defer { store.close() }
            let log = EventLog()
            let token = store.listen("now", options: ListenerOptions(immediate: true)) { log.record($0) }
            defer { token.cancel() }
            var sequences: [Int64] = []
            for index in 0..<20 {
                let sequence = try #require(try server.commit(as: store, "INSERT INTO nodes (name, x, y) VALUES ('n\(index)', 0, 0)"))
                #expect(log.commits.last?.sequence == sequence, "published before the write returned")
                sequences.append(sequence)
            }
            Thread.sleep(forTimeInterval: 0.6)  // the feed sees the same commits: none comes twice
            #expect(log.commits.map(\.sequence) == sequences)
        }
    }

    @Test func theFeedReconnectsAndCatchesUpWhenItsConnectionIsKilled() throws {
        try ObservedServer.with { server in
            let store = try server.openStore()
            defer { store.close() }
            let log = EventLog()
            let token = store.listen("all") { log.record($0) }
            defer { token.cancel() }
            try waitUntil { store.changeFeedProcessID != nil }
            let first = try #require(try server.commit("INSERT INTO nodes (name, x, y) VALUES ('before', 0, 0)"))
            try log.waitForCommits(1)
            var last = first
            for round in 0..<3 {
                let pid = try #require(store.changeFeedProcessID)
                try server.psql.execute("SELECT pg_terminate_backend($1::int)", [.integer(pid)])
                // Written while the feed is (probably) down: caught up after the reconnect.
                for index in 0..<5 {
                    last = try #require(try server.commit("INSERT INTO nodes (name, x, y) VALUES ('r\(round)-\(index)', 0, 0)"))
                }
                try waitUntil { store.changeFeedConnections >= round + 2 }
            }
            try log.waitForCommits(Int(last - first + 1))
            Thread.sleep(forTimeInterval: 0.5)
            #expect(log.commits.map(\.sequence) == Array(first...last))
        }
    }

    @Test func aRefusedAddressIsRetriedNotFatal() throws {
        // A store whose feed loses its server keeps retrying; closing it ends the feed promptly.
        try ObservedServer.with { server in
            let store = try server.openStore()
            try waitUntil { store.changeFeedProcessID != nil }
            try server.psql.execute("SELECT pg_terminate_backend($1::int)", [.integer(try #require(store.changeFeedProcessID))])
            let start = Date()
            store.close()
            #expect(Date().timeIntervalSince(start) < 3)
        }
    }
}
#endif
