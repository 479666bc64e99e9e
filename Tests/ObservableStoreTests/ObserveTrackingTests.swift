import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// `observe(tracking:)` on real files: any read as an observed value, run again only by commits to what it
/// read. Each test counts the read's runs: a commit that touches none of its region must not run it.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ObserveTrackingTests {
    /// A read's runs and what a consumer task received from it.
    private final class Watch<Value: Sendable & Equatable>: Sendable {
        let runs = Locked(0)
        let received = Recorder<Observed<Value>>()
        let ended = Locked(false)
        let failure = Locked<String?>(nil)
        private let task = Locked<Task<Void, Never>?>(nil)

        /// Observes `read` in `store` (counting its runs) and consumes the values in a task.
        init(_ store: SQLiteStore, _ read: @escaping @Sendable (SQLiteTransaction) throws -> Value) throws {
            // A run counts once the read is done: a commit made after `waitUntilRuns(n)` returns is then
            // outside run n's snapshot, and must run the read again.
            let values = try store.observe(tracking: { [runs] tx in
                defer { runs.withLock { $0 += 1 } }
                return try read(tx)
            })
            let (received, ended, failure) = (received, ended, failure)
            task.value = Task {
                defer { ended.value = true }
                do {
                    for try await element in values { received.append(element) }
                } catch {
                    failure.value = "\(error)"
                }
            }
        }

        var values: [Value] { received.all.map(\.value) }
        var sequences: [Int64] { received.all.map(\.sequence) }

        /// Waits until the last value received is `value`.
        func waitFor(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await waitUntil("the value \(value)", sourceLocation: sourceLocation) { received.all.last?.value == value }
        }

        /// Waits until the read finished `count` runs.
        func waitUntilRuns(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await waitUntil("\(count) runs", sourceLocation: sourceLocation) { runs.value >= count }
        }

        /// Gives commits just made the time to be delivered, then says whether the read ran `count` times: a
        /// commit that wrongly ran the read shows here (and not only later, where a wrong run that read the
        /// next commit too would hide it).
        func settles(at count: Int) async throws -> Bool {
            try await Task.sleep(for: .milliseconds(100))
            return runs.value == count
        }

        func cancel() { task.value?.cancel() }
        deinit { task.value?.cancel() }
    }

    /// Tags of nodes (joined with `nodes`) and an audit table no read here uses.
    private static let schema = """
        CREATE TABLE tags (id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL, label TEXT NOT NULL, note TEXT);
        CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT NOT NULL);
        """

    private func withStore(
        configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration(), _ body: (SQLiteStore, String) async throws -> Void
    ) async throws {
        try await withTemporaryStore(configuration: configuration) { store, path in
            try execute(store, Self.schema)
            try await body(store, path)
        }
    }

    /// The first column of each row of `sql`, as text.
    private static func texts(_ tx: SQLiteTransaction, _ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> [String] {
        try tx.fetchRows(sql, arguments).map { row in
            switch row[0] {
            case .text(let text): text
            case .null: "NULL"
            case let value: "\(value)"
            }
        }
    }

    private func audit(_ store: SQLiteStore, _ count: Int = 3) throws {
        for index in 0..<count {
            try execute(store, "INSERT INTO audit (what) VALUES (?)", ["entry \(index)"])
        }
    }

    /// One write of `sql` (the synchronous `write`, which async code would not pick).
    private func execute(_ store: SQLiteStore, _ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws {
        try store.write { tx in _ = try tx.execute(sql, arguments) }
    }

    /// One read (the synchronous `read`).
    private func read<T>(_ store: SQLiteStore, _ body: (SQLiteTransaction) throws -> T) throws -> T {
        try store.read(body)
    }

    /// Node names with their tags' labels (a join), and the number of tags.
    private struct Tagged: Equatable, Sendable {
        var pairs: [String]
        var tagCount: Int64
    }

    private static func tagged(_ tx: SQLiteTransaction) throws -> Tagged {
        let pairs = try texts(
            tx, "SELECT nodes.name || ':' || tags.label FROM nodes JOIN tags ON tags.node_id = nodes.id ORDER BY 1")
        guard case .integer(let count) = try tx.fetchValue("SELECT count(*) FROM tags") else { return Tagged(pairs: pairs, tagCount: -1) }
        return Tagged(pairs: pairs, tagCount: count)
    }

    @Test func aTrackedReadDoesNotKeepItsStoreAlive() async throws {
        try await withTemporaryDirectory { directory in
            var store: SQLiteStore? = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
            let released = WeakReference(try #require(store))
            let values = try #require(store).observe(tracking: { tx in try tx.count(RecordQuery<NodeVO>()) })
            var iterator = values.makeAsyncIterator()
            #expect(try await iterator.next()?.value == 0)
            store = nil  // not closed: the sequence alone must not keep the store (and its files) open
            try await waitUntil("the store is released") { released.object == nil }
            #expect(try await iterator.next() == nil)  // the store closed as it went away: the sequence ends
        }
    }

    @Test func aJoinAndACountRunAgainOnlyForCommitsToWhatTheyRead() async throws {
        try await withStore { store, _ in
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "a", x: 1, y: 1))
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (?, 'red')", [node.id])
            let watch = try Watch(store, Self.tagged)
            try await watch.waitFor(Tagged(pairs: ["a:red"], tagCount: 1))
            #expect(watch.runs.value == 1)

            try audit(store)  // a third table: not read
            var moved = node
            moved.y = 50
            try store.repository(NodeVO.self).update(moved)  // nodes.y: not read by the join
            #expect(try await watch.settles(at: 1))
            // tags is read whole (count(*)): an update of a column the join does not read runs it again,
            // and the same value is not delivered again.
            try execute(store, "UPDATE tags SET note = 'n'")
            try await watch.waitUntilRuns(2)
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (?, 'blue')", [node.id])
            try await watch.waitFor(Tagged(pairs: ["a:blue", "a:red"], tagCount: 2))
            #expect(watch.runs.value == 3)
            #expect(watch.values.count == 2)

            // A column the join reads (nodes.name) runs it again.
            var renamed = moved
            renamed.name = "b"
            try store.repository(NodeVO.self).update(renamed)
            try await watch.waitFor(Tagged(pairs: ["b:blue", "b:red"], tagCount: 2))
            #expect(watch.runs.value == 4)
            #expect(watch.sequences == [3, 9, 10])
            watch.cancel()
        }
    }

    @Test func anUpdateOfAColumnTheReadDoesNotUseDoesNotRunIt() async throws {
        try await withStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            var far = try nodes.insert(NodeVO(name: "far", x: 200, y: 0))
            let names = try Watch(store) { tx in try Self.texts(tx, "SELECT name FROM nodes WHERE x > 100 ORDER BY name") }
            // A query of records selects every column of nodes: y is read there.
            let records = try Watch(store) { tx in try tx.fetchAll(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0)).map(\.id) }
            try await names.waitFor(["far"])
            for step in 1...3 {
                far.y = Double(step)
                try nodes.update(far)  // y: not read by `names`
            }
            #expect(try await names.settles(at: 1))
            try await records.waitUntilRuns(2)
            far.x = 300
            try nodes.update(far)  // x: read, the result is the same
            try await names.waitUntilRuns(2)
            try nodes.insert(NodeVO(name: "near", x: 150, y: 0))
            try await names.waitFor(["far", "near"])
            #expect(names.runs.value == 3)
            #expect(names.values.count == 2)
            names.cancel()
            records.cancel()
        }
    }

    @Test func aGeneratedColumnIsFollowedThroughTheColumnsItIsComputedFrom() async throws {
        try await withStore { store, _ in
            // The authorizer reports `area`, not `w`; the change log does not list `area`.
            try execute(store, "CREATE TABLE boxes (id INTEGER PRIMARY KEY, w REAL NOT NULL, area REAL AS (w * w) VIRTUAL)")
            try execute(store, "INSERT INTO boxes (w) VALUES (2)")
            let watch = try Watch(store) { tx in try tx.fetchRows("SELECT area FROM boxes").map { $0[0] } }
            try await watch.waitFor([.real(4)])
            try execute(store, "UPDATE boxes SET w = 3")
            try await watch.waitFor([.real(9)])
            watch.cancel()
        }
    }

    @Test func rawSQLRecordsAndKeysAreTrackedAlike() async throws {
        try await withStore { store, _ in
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))
            let watch = try Watch(store) { tx in
                let user = try tx.fetch(UserInfo.self, key: "me")?.name ?? "-"
                let labels = try Self.texts(tx, "SELECT label FROM tags WHERE note IS NOT ? ORDER BY label", ["hidden"])
                return [user] + labels
            }
            try await watch.waitFor(["Ada"])
            try audit(store)
            #expect(try await watch.settles(at: 1))
            try execute(store, "INSERT INTO tags (node_id, label, note) VALUES (1, 'x', 'hidden')")
            try await watch.waitUntilRuns(2)
            try store.repository(UserInfo.self).update(UserInfo(id: "me", name: "Grace"))
            try await watch.waitFor(["Grace"])
            try execute(store, "UPDATE tags SET note = NULL")
            try await watch.waitFor(["Grace", "x"])
            #expect(watch.runs.value == 4)
            watch.cancel()
        }
    }

    @Test func aStatementCachedBeforeStillReportsWhatItReads() async throws {
        // One reader connection: the untracked reads below cache their statements where the tracked read runs.
        var configuration = SQLiteStoreConfiguration()
        configuration.maximumReaderCount = 1
        try await withStore(configuration: configuration) { store, _ in
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "a", x: 1, y: 1))
            let sql = "SELECT label FROM tags ORDER BY label"
            _ = try read(store) { tx in (try Self.texts(tx, sql), try tx.fetch(NodeVO.self, key: node.id!)) }
            let watch = try Watch(store) { tx in
                try Self.texts(tx, sql) + [try tx.fetch(NodeVO.self, key: node.id!)?.name ?? "-"]
            }
            try await watch.waitFor(["a"])
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'red')")
            try await watch.waitFor(["red", "a"])
            var renamed = node
            renamed.name = "b"
            try store.repository(NodeVO.self).update(renamed)
            try await watch.waitFor(["red", "b"])
            // Untracked reads of the same SQL still work afterwards, on the statements the tracked read prepared.
            #expect(try read(store) { tx in try Self.texts(tx, sql) } == ["red"])
            try audit(store)
            #expect(try await watch.settles(at: 3))
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'sea')")
            try await watch.waitFor(["red", "sea", "b"])
            #expect(watch.runs.value == 4)
            watch.cancel()
        }
    }

    @Test func theRegionIsRecordedAgainAtEachRun() async throws {
        try await withStore { store, _ in
            // Reads tags only while some audit entry says so.
            let watch = try Watch(store) { tx in
                guard try tx.fetchValue("SELECT 1 FROM audit WHERE what = 'show tags'") != nil else { return ["hidden"] }
                return try Self.texts(tx, "SELECT label FROM tags ORDER BY label")
            }
            try await watch.waitFor(["hidden"])
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'red')")  // not read yet
            #expect(try await watch.settles(at: 1))
            try execute(store, "INSERT INTO audit (what) VALUES ('show tags')")
            try await watch.waitFor(["red"])
            #expect(watch.runs.value == 2)
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'sea')")  // read now
            try await watch.waitFor(["red", "sea"])
            #expect(watch.runs.value == 3)
            try execute(store, "DELETE FROM audit")
            try await watch.waitFor(["hidden"])
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'sky')")  // not read again
            #expect(try await watch.settles(at: 4))
            try execute(store, "INSERT INTO audit (what) VALUES ('other')")
            try await watch.waitUntilRuns(5)
            #expect(try await watch.settles(at: 5))
            #expect(watch.values == [["hidden"], ["red"], ["red", "sea"], ["hidden"]])
            watch.cancel()
        }
    }

    @Test func aSchemaChangeRunsTheReadAndItsNewColumnsAreTracked() async throws {
        try await withStore { store, _ in
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'red')")
            let watch = try Watch(store) { tx in try tx.fetchRows("SELECT * FROM tags").map(\.values) }
            try await waitUntil("the first value") { watch.values.count == 1 }
            try execute(store, "CREATE TABLE unrelated (a)")  // a schema change: runs again
            try await watch.waitUntilRuns(2)
            #expect(try await watch.settles(at: 2))
            #expect(watch.values.count == 1)  // the same value: not delivered again
            try execute(store, "ALTER TABLE tags ADD COLUMN color TEXT")
            try await watch.waitUntilRuns(3)
            try await waitUntil("the row with its new column") { watch.values.last?.first?.count == 5 }
            // `SELECT *` now reads the new column: its update runs the read.
            try execute(store, "UPDATE tags SET color = 'blue'")
            try await waitUntil("the new column's value") { watch.values.last?.first?.last == .text("blue") }
            #expect(watch.runs.value == 4)
            watch.cancel()
        }
    }

    private struct Refused: Error {}

    @Test func aReadThatFailsEndsTheSequenceWithItsError() async throws {
        try await withStore { store, _ in
            let watch = try Watch(store) { tx in
                let count = try Self.texts(tx, "SELECT count(*) FROM tags")
                if count != ["0"] { throw Refused() }
                return count
            }
            try await watch.waitFor(["0"])
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'red')")
            try await waitUntil("the sequence to end") { watch.ended.value }
            #expect(watch.failure.value?.contains("Refused") == true)
            try await waitUntil("the listener to be removed") { store.registry.streamCount == 0 }

            // A read that fails at once: the first element is the error.
            let missing = try Watch(store) { tx in try Self.texts(tx, "SELECT name FROM no_such_table") }
            try await waitUntil("the sequence to end") { missing.ended.value }
            #expect(missing.failure.value?.contains("no such table") == true)
            #expect(missing.values.isEmpty)
        }
    }

    @Test func cancellingTheConsumerRemovesTheListener() async throws {
        try await withStore { store, _ in
            let watch = try Watch(store) { tx in try Self.texts(tx, "SELECT label FROM tags") }
            try await watch.waitFor([])
            #expect(store.registry.streamCount == 1)
            watch.cancel()
            try await waitUntil("the iteration to end") { watch.ended.value }
            try await waitUntil("the listener to be removed") { store.registry.streamCount == 0 }
            try execute(store, "INSERT INTO tags (node_id, label) VALUES (1, 'red')")
            #expect(try await watch.settles(at: 1))
        }
    }

    @Test func otherConnectionsAndProcessesUpdateItAndAResyncRunsIt() async throws {
        try await withStore { store, path in
            let watch = try Watch(store) { tx in try Self.texts(tx, "SELECT name FROM user_info ORDER BY name") }
            try await watch.waitFor([])
            // Another process writes nodes only: its commits arrive, and do not run the read.
            let child = try RunningProcess("store-fixture", ["write", path, "20"])
            let result = child.wait()
            #expect(result.status == 0, "\(result.stderr)")
            try await waitUntil("the child's commits") { try store.lastSequence() == 21 }
            #expect(try await watch.settles(at: 1))
            // Another store on the same file writes a user: the read runs once more.
            let other = try SQLiteStore(path: path)
            try other.repository(UserInfo.self).insert(UserInfo(id: "u1", name: "from-other"))
            other.close()
            try await watch.waitFor(["from-other"])
            #expect(watch.runs.value == 2)
            #expect(watch.sequences == [1, 22])  // after the schema: 20 commits of the child, the other store's
            // The sqlite3 shell logs nothing: an external change runs the read whatever it touched.
            let shell = try runSQLiteShell(path, "INSERT INTO audit (what) VALUES ('shell');")
            #expect(shell.status == 0, "\(shell.stderr)")
            try await watch.waitUntilRuns(3)
            #expect(watch.values == [[], ["from-other"]])
            watch.cancel()
        }
    }

    @Test func readsOfTablesWhoseChangesAreNotLoggedRunOnEveryCommit() async throws {
        try await withStore { store, _ in
            // The change log itself is not captured: reading it makes the region the whole database.
            let watch = try Watch(store) { tx in try Self.texts(tx, "SELECT count(*) FROM _store_commits") }
            try await watch.waitFor(["1"])
            try audit(store, 1)
            try await watch.waitFor(["2"])
            // A view's tables are tracked through it; a virtual table makes the region the whole database.
            try execute(store, "CREATE VIEW labels AS SELECT label FROM tags; CREATE VIRTUAL TABLE notes USING fts5(body)")
            let region = try read(store) { tx in
                (
                    try ReadRegion.recording(in: tx) { try tx.fetchRows("SELECT label FROM labels") }.region,
                    try ReadRegion.recording(in: tx) { try tx.fetchRows("SELECT body FROM notes WHERE notes MATCH 'x'") }.region,
                    try ReadRegion.recording(in: tx) { try tx.fetchRows("SELECT rowid FROM user_info") }.region
                )
            }
            #expect(region.0 == ReadRegion(tables: ["tags": .only(["label"])]))
            #expect(region.1 == .wholeDatabase)
            #expect(region.2 == ReadRegion(tables: ["user_info": .all]))
            let pure = try read(store) { tx in
                try ReadRegion.recording(in: tx) { try tx.fetchRows("SELECT value FROM json_each('[1]')") }.region
            }
            #expect(pure == ReadRegion(tables: [:]))
            watch.cancel()
        }
    }
}
