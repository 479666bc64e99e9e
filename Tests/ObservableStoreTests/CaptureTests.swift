import Foundation
import ObservableStore
import StoreSQLite
import StoreTestSupport
import TestScheduling
import Testing

/// One test per item of the change-capture hazard list (OBSERVATION-NOTES.md 8.6).
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct CaptureTests {
    private static let hazardTables = try! MigrationSet(
        name: "hazards",
        migrations: [
            Migration(
                version: 1, name: "create_hazard_tables",
                sql: """
                    CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT UNIQUE ON CONFLICT REPLACE);
                    CREATE TABLE c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p(id) ON DELETE CASCADE);
                    CREATE TABLE w (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
                    CREATE TABLE nopk (a, b);
                    CREATE TABLE composite (a TEXT, b INTEGER, v, PRIMARY KEY (b, a));
                    CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT NOT NULL);
                    CREATE TRIGGER nodes_audit AFTER INSERT ON nodes BEGIN
                      INSERT INTO audit (what) VALUES ('node ' || NEW.name);
                    END;
                    """)
        ])

    private func withHazardStore(_ body: (SQLiteStore, EventRecorder) throws -> Void) throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.migrationSets = [Self.hazardTables]
        try withTemporaryStore(configuration: configuration) { store, _ in
            let (recorder, token) = store.record()
            try body(store, recorder)
            withExtendedLifetime(token) {}
        }
    }

    @Test func interleavedTablesInOneTransactionKeepTheirNames() throws {
        // The capture reuses the previous change's table when the name matches: switching back and forth,
        // and a table whose name extends another's ("c" and "composite"), must still be told apart.
        try withHazardStore { store, recorder in
            try store.write { tx in
                try tx.execute("INSERT INTO c (id) VALUES (1)")
                try tx.execute("INSERT INTO composite (a, b) VALUES ('x', 1)")
                try tx.execute("INSERT INTO c (id) VALUES (2)")
                try tx.execute("INSERT INTO p (id, name) VALUES (1, 'one')")
                try tx.execute("INSERT INTO composite (a, b) VALUES ('y', 2)")
            }
            #expect(recorder.wait(for: 1))
            #expect(recorder.changes.map(\.table) == ["c", "composite", "c", "p", "composite"])
        }
    }

    /// The hook reads a text value's bytes in place when the database stores UTF-8, and converts it when
    /// the file was created as UTF-16: both give the same events, non-ASCII text and updates included.
    @Test(arguments: ["UTF-8", "UTF-16le", "UTF-16be"])
    func textIsCapturedWhateverTheDatabaseEncoding(encoding: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            let setUp = try Connection(path: path, mode: .readWrite(create: true), busyTimeoutMilliseconds: 1000)
            try setUp.execute("PRAGMA encoding = '\(encoding)'")
            try setUp.execute("CREATE TABLE before_the_store (a)")  // the encoding is fixed by the first table
            setUp.close()
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            #expect(try store.read { try $0.fetchValue("PRAGMA encoding") } == .text(encoding))
            let (recorder, token) = store.record()
            defer { withExtendedLifetime(token) {} }
            let users = store.repository(UserInfo.self)
            try users.insert(UserInfo(id: "ü-1", name: "Zoë 🌍", hairColor: ""))
            var user = try #require(try users.fetch("ü-1"))
            user.hairColor = "grün"
            try users.update(user)
            try users.delete(key: "ü-1")
            #expect(recorder.wait(for: 3))
            let changes = recorder.changes
            #expect(changes.map(\.summary) == ["insert user_info 'ü-1'", "update user_info 'ü-1'", "delete user_info 'ü-1'"])
            #expect(changes[0].new?.value("name", as: String.self) == "Zoë 🌍")
            #expect(changes[0].new?.value("hair_color", as: String.self) == "")
            #expect(changes[1].changedColumns == ["hair_color"])
            #expect(changes[1].new?.value("hair_color", as: String.self) == "grün")
            #expect(changes[2].old?.value("name", as: String.self) == "Zoë 🌍")
        }
        // The fast path is taken where it exists: this machine's SQLite is 3.40 or later.
        let version = Connection.libraryVersion.split(separator: ".").compactMap { Int($0) }
        #expect(PreupdateChange.readsTextInPlace == (version.lexicographicallyPrecedes([3, 40]) == false))
    }

    @Test func deleteWithoutWhereReportsEveryRow() throws {
        try withHazardStore { store, recorder throws in
            try store.write { tx in
                for name in ["a", "b", "c"] { try tx.insert(UserInfo(id: name, name: name.uppercased())) }
            }
            try store.write { try $0.execute("DELETE FROM user_info") }
            let commit = try #require(recorder.commits.last)
            #expect(commit.changes.map(\.summary) == ["delete user_info 'a'", "delete user_info 'b'", "delete user_info 'c'"])
            #expect(commit.changes[1].old?.value("name", as: String.self) == "B")
            #expect(commit.changes.allSatisfy { $0.new == nil })
        }
    }

    @Test func insertOrReplaceReportsTheDeletedRow() throws {
        try withHazardStore { store, recorder throws in
            try store.write { try $0.execute("INSERT INTO user_info (id, name) VALUES ('me', 'Ada')") }
            try store.write { try $0.execute("INSERT OR REPLACE INTO user_info (id, name) VALUES ('me', 'Grace')") }
            let commit = try #require(recorder.commits.last)
            #expect(commit.changes.map(\.summary) == ["delete user_info 'me'", "insert user_info 'me'"])
            #expect(commit.changes[0].old?.value("name", as: String.self) == "Ada")
            #expect(commit.changes[1].new?.value("name", as: String.self) == "Grace")
        }
    }

    @Test func onConflictReplaceReportsTheOtherRowAndItsCascade() throws {
        try withHazardStore { store, recorder throws in
            try store.write { tx in
                try tx.execute("INSERT INTO p (id, name) VALUES (1, 'a'), (2, 'b')")
                try tx.execute("INSERT INTO c (id, pid) VALUES (10, 1), (11, 1)")
            }
            // name 'a' belongs to row 1: the REPLACE deletes row 1 (and its children), then inserts row 3.
            try store.write { try $0.execute("INSERT INTO p (id, name) VALUES (3, 'a')") }
            let commit = try #require(recorder.commits.last)
            #expect(Set(commit.changes.map(\.summary)) == ["delete p 1", "delete c 10", "delete c 11", "insert p 3"])
            #expect(commit.changes.last?.summary == "insert p 3")
            let remaining = try store.read { try $0.fetchValue("SELECT count(*) FROM c") }
            #expect(remaining == .integer(0))
        }
    }

    @Test func upsertReportsAnUpdateWithTheChangedColumns() throws {
        try withHazardStore { store, recorder throws in
            try store.repository(UserInfo.self).upsert(UserInfo(id: "me", name: "Ada", hairColor: "brown"))
            var user = try #require(try store.repository(UserInfo.self).fetch("me"))
            user.name = "Grace"
            try store.repository(UserInfo.self).upsert(user)
            let commits = recorder.commits
            #expect(commits.count == 2)
            #expect(commits[0].changes.map(\.summary) == ["insert user_info 'me'"])
            #expect(commits[1].changes.map(\.summary) == ["update user_info 'me'"])
            #expect(commits[1].changes[0].changedColumns == ["name"])
            #expect(commits[1].changes[0].old?.value("name", as: String.self) == "Ada")
        }
    }

    /// An update's changed columns are found by storage class and bytes: each transition below, from the value
    /// before to the value after, in the row's column `a` (column `b` keeps its value and is never reported).
    @Test(arguments: [
        ("'abc'", "'abd'", true), ("'same'", "'same'", false), ("NULL", "NULL", false), ("1", "1.0", true),
        ("1.5", "1.5", false), ("x'0102'", "x'0102'", false), ("x'0102'", "x'0103'", true), ("5", "NULL", true),
        ("NULL", "''", true), ("''", "x''", true), ("0.5", "0.25", true), ("printf('%.500d', 1)", "printf('%.500d', 2)", true),
    ])
    func anUpdateReportsExactlyTheColumnsWhoseValueChanged(before: String, after: String, changed: Bool) throws {
        try withHazardStore { store, recorder throws in
            try store.write { tx in try tx.execute("INSERT INTO nopk (rowid, a, b) VALUES (1, \(before), 'kept')") }
            try store.write { tx in try tx.execute("UPDATE nopk SET a = \(after), b = 'kept' WHERE rowid = 1") }
            let update = try #require(recorder.commits.last?.changes.first)
            #expect(update.changedColumns == (changed ? ["a"] : []), "\(before) → \(after)")
            let stored = try store.read { try $0.fetchRows("SELECT \(before) AS before, \(after) AS after") }.first
            #expect(update.old?["a"] == stored?["before"] && update.new?["a"] == stored?["after"], "\(before) → \(after)")
            #expect(update.old?["b"] == .text("kept") && update.new?["b"] == .text("kept"))
        }
    }

    @Test func foreignKeyCascadesAreReported() throws {
        try withHazardStore { store, recorder throws in
            try store.write { tx in
                try tx.execute("INSERT INTO p (id, name) VALUES (1, 'a')")
                try tx.execute("INSERT INTO c (id, pid) VALUES (10, 1), (11, 1)")
            }
            try store.write { try $0.execute("DELETE FROM p WHERE id = 1") }
            #expect(Set(recorder.commits.last?.changes.map(\.summary) ?? []) == ["delete p 1", "delete c 10", "delete c 11"])
        }
    }

    @Test func triggerSideEffectsAreReported() throws {
        try withHazardStore { store, recorder throws in
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            #expect(recorder.commits.last?.changes.map(\.summary) == ["insert nodes 1", "insert audit 1"])
            #expect(recorder.commits.last?.changes[1].new?.value("what", as: String.self) == "node n")
        }
    }

    @Test func aPrimaryKeyChangeIsADeleteAndAnInsert() throws {
        try withHazardStore { store, recorder throws in
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            try store.write { try $0.execute("UPDATE nodes SET id = 100 WHERE id = 1") }
            #expect(recorder.commits.last?.changes.map(\.summary) == ["delete nodes 1", "insert nodes 100"])
            try store.write { try $0.execute("INSERT INTO composite VALUES ('x', 1, 'v')") }
            try store.write { try $0.execute("UPDATE composite SET a = 'y'") }
            #expect(recorder.commits.last?.changes.map(\.summary) == ["delete composite 1,'x'", "insert composite 1,'y'"])
        }
    }

    @Test func withoutRowidTablesAreKeyedByTheirPrimaryKey() throws {
        try withHazardStore { store, recorder throws in
            try store.write { try $0.execute("INSERT INTO w (k, v) VALUES ('key-1', 1), ('key-2', 2)") }
            try store.write { try $0.execute("UPDATE w SET v = v + 10 WHERE k = 'key-2'") }
            try store.write { try $0.execute("DELETE FROM w") }
            let summaries = recorder.commits.map { $0.changes.map(\.summary) }
            #expect(summaries == [["insert w 'key-1'", "insert w 'key-2'"], ["update w 'key-2'"], ["delete w 'key-1'", "delete w 'key-2'"]])
            #expect(recorder.commits[1].changes[0].new?.value("v", as: Int.self) == 12)
        }
    }

    @Test func tablesWithoutAPrimaryKeyAreKeyedByRowid() throws {
        try withHazardStore { store, recorder throws in
            try store.write { try $0.execute("INSERT INTO nopk (a, b) VALUES (1, 2)") }
            #expect(recorder.commits.last?.changes.map(\.summary) == ["insert nopk 1"])
        }
    }

    @Test func aFailedStatementInsideATransactionReportsNothingOfItsOwn() throws {
        try withHazardStore { store, recorder throws in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "wide", x: 0, y: 0, width: 120))
            try nodes.insert(NodeVO(name: "narrow", x: 0, y: 0, width: 50))
            let before = recorder.commits.count
            try store.write { tx in
                // Row 1 is updated, then row 2 fails the CHECK: SQLite undoes the whole statement.
                #expect(throws: StoreError.self) { try tx.execute("UPDATE nodes SET width = width - 100") }
                try tx.execute("UPDATE nodes SET name = 'renamed' WHERE id = 2")
            }
            #expect(recorder.commits.count == before + 1)
            #expect(recorder.commits.last?.changes.map(\.summary) == ["update nodes 2"])
            #expect(try nodes.fetch(1)?.width == 120)
        }
    }

    @Test func schemaChangesAreOneSchemaEventNotRowEvents() throws {
        try withHazardStore { store, recorder throws in
            try store.write { tx in
                try tx.execute("CREATE TABLE extra (x INTEGER)")
                try tx.execute("ALTER TABLE nodes ADD COLUMN z REAL NOT NULL DEFAULT 0")
            }
            let commit = try #require(recorder.commits.last)
            #expect(commit.schemaChanged)
            #expect(commit.changes.isEmpty)
            // Later commits carry the new column.
            try store.write { try $0.execute("INSERT INTO nodes (name, x, y, z) VALUES ('n', 0, 0, 7)") }
            #expect(recorder.commits.last?.changes.first?.new?.value("z", as: Double.self) == 7)
            #expect(recorder.commits.last?.schemaChanged == false)
        }
    }

    /// The writer knows the schema version its last commit ended with; another connection's schema change
    /// since then must not make the writer's next commit look like a schema change of its own.
    @Test func anotherConnectionsSchemaChangeIsNotThisWritersOwn() throws {
        try withTemporaryStore { store, path throws in
            let (recorder, token) = store.record()
            defer { withExtendedLifetime(token) {} }
            try store.repository(NodeVO.self).insert(NodeVO(name: "before", x: 0, y: 0))
            let other = try Connection(path: path, mode: .readWrite(create: false), busyTimeoutMilliseconds: 1000)
            try other.execute("ALTER TABLE nodes ADD COLUMN z REAL NOT NULL DEFAULT 0")
            other.close()
            try store.write { try $0.execute("INSERT INTO nodes (name, x, y, z) VALUES ('after', 0, 0, 7)") }
            // The writer's own schema change still counts, and the commit after it is a plain one again.
            try store.write { try $0.execute("CREATE TABLE extra (x)") }
            try store.repository(NodeVO.self).insert(NodeVO(name: "last", x: 0, y: 0))
            #expect(recorder.wait(for: 4))
            let commits = recorder.commits
            #expect(commits.map(\.schemaChanged) == [false, false, true, false])
            #expect(commits[1].changes.first?.new?.value("z", as: Double.self) == 7)
        }
    }

    /// The schema version is read again at commit only after a statement that may change the schema, and
    /// that is any statement but INSERT, UPDATE, DELETE, REPLACE and queries, not just CREATE, ALTER, DROP:
    /// ANALYZE creates `sqlite_stat1`, whatever the case or comments before the keyword.
    @Test func everyStatementThatMayChangeTheSchemaIsChecked() throws {
        try withTemporaryStore { store, _ throws in
            let (recorder, token) = store.record()
            defer { withExtendedLifetime(token) {} }
            try store.write { tx in
                try tx.insert(NodeVO(name: "a", x: 0, y: 0))
                try tx.execute("/* statistics */ analyze")
            }
            try store.write { tx in
                _ = try tx.fetchRows("SELECT 1")
                try tx.execute("WITH n(v) AS (VALUES (2)) INSERT INTO nodes (name, x, y) SELECT 'b', v, v FROM n")
            }
            try store.write { tx in _ = try tx.fetchRows("create index nodes_x on nodes (x)") }
            #expect(recorder.wait(for: 3))
            #expect(recorder.commits.map(\.schemaChanged) == [true, false, true])
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'") } == .integer(1))
        }
    }

    @Test func rolledBackWorkAndEmptyTransactionsProduceNothing() throws {
        try withHazardStore { store, recorder throws in
            struct Planned: Error {}
            try? store.write { tx in
                try tx.insert(NodeVO(name: "rolled back", x: 0, y: 0))
                throw Planned()
            }
            try store.write { _ in }
            try store.write { tx in _ = try tx.count(RecordQuery<NodeVO>()) }
            try store.write { tx in
                try tx.insert(UserInfo(id: "kept", name: "K"))
                try? tx.savepoint { tx in
                    try tx.insert(UserInfo(id: "dropped", name: "D"))
                    try tx.savepoint { tx in try tx.insert(UserInfo(id: "dropped-inner", name: "DI")) }
                    throw Planned()
                }
                try tx.savepoint { tx in try tx.insert(UserInfo(id: "released", name: "R")) }
            }
            #expect(recorder.commits.count == 1)
            #expect(recorder.commits[0].changes.map(\.summary) == ["insert user_info 'kept'", "insert user_info 'released'"])
            // The empty and rolled-back transactions took no sequence number.
            #expect(recorder.commits[0].sequence == 1)
        }
    }

    @Test func transactionControlInRawSQLIsRefused() throws {
        try withHazardStore { store, recorder throws in
            for sql in ["COMMIT", "ROLLBACK", "SAVEPOINT x", "BEGIN", "END", "RELEASE x"] {
                let error = #expect(throws: StoreError.self, "\(sql)") {
                    try store.write { tx in
                        try tx.insert(NodeVO(name: "n", x: 0, y: 0))
                        try tx.execute(sql)
                    }
                }
                #expect(error?.code == .invalidInput)
            }
            #expect(try store.repository(NodeVO.self).count() == 0)
            #expect(recorder.commits.isEmpty)
        }
    }

    @Test func commitsCarrySequenceTimeOriginAndValues() throws {
        try withHazardStore { store, recorder throws in
            let started = Date().addingTimeInterval(-1)
            let node = try store.repository(NodeVO.self, origin: "canvas").insert(NodeVO(name: "n", x: 1, y: 2))
            var moved = node
            moved.x = 5
            try store.repository(NodeVO.self).update(moved)
            let commits = recorder.commits
            #expect(commits.map(\.sequence) == [1, 2])
            #expect(commits[0].origin == "canvas")
            #expect(commits[1].origin == nil)
            #expect(commits.allSatisfy { $0.committedAt >= started && $0.committedAt <= Date() })
            let update = try #require(commits[1].changes.first)
            #expect(update.changedColumns == ["x"])
            #expect(try update.old?.decode(NodeVO.self) == node)
            #expect(try update.new?.decode(NodeVO.self) == moved)
            #expect(update.key == [.integer(node.id!)])
        }
    }

    @Test func theChangeLogHoldsEveryCommitAndSequencesContinueAfterReopening() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("log.sqlite").path
            do {
                let store = try SQLiteStore(path: path)
                for index in 0..<3 { try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
                let rows = try store.read { try $0.fetchRows("SELECT seq, change_count, tables FROM _store_commits ORDER BY seq") }
                #expect(rows.map { $0.value("seq", as: Int64.self) } == [1, 2, 3])
                #expect(rows.allSatisfy { $0.value("change_count", as: Int.self) == 1 && $0.value("tables", as: String.self) == "nodes" })
                store.close()
            }
            let reopened = try SQLiteStore(path: path)
            defer { reopened.close() }
            let (recorder, token) = reopened.record()
            try reopened.repository(NodeVO.self).insert(NodeVO(name: "after", x: 0, y: 0))
            #expect(recorder.commits.map(\.sequence) == [4])
            withExtendedLifetime(token) {}
        }
    }

    @Test func writesToInternalTablesAreNotCaptured() throws {
        try withHazardStore { store, recorder throws in
            try store.write { tx in
                try tx.execute("INSERT INTO _store_listeners (name, cursor_seq, updated_at) VALUES ('x', 0, '2026-01-01T00:00:00.000Z')")
            }
            #expect(recorder.commits.isEmpty)
        }
    }
}

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct TrackingSwitchTests {
    @Test func withTrackingOffNothingIsLoggedOrDelivered() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.tracksChanges = false
        try withTemporaryStore(configuration: configuration) { store, _ throws in
            let (recorder, token) = store.record()
            try store.repository(NodeVO.self).insert(NodeVO(name: "quiet", x: 0, y: 0))
            #expect(recorder.all.isEmpty)
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM _store_commits") } == .integer(0))
            withExtendedLifetime(token) {}
        }
    }

    @Test func aFailedBindLeavesNoListenerBehind() throws {
        struct Ghost: Record {
            static let tableName = "ghosts"
            typealias Key = Int64
            var id: Int64
        }
        try withTemporaryStore { store, _ throws in
            let error = #expect(throws: StoreError.self) { try store.bindAndFire("ghost", Ghost.self, key: 1) { _ in } }
            #expect(error?.message.contains("no such table: ghosts") == true)
            #expect(store.listenerNames.isEmpty)
        }
    }
}

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct CapturedValueTests {
    @Test func integralRealsArriveAsReals() throws {
        try withTemporaryStore { store, _ throws in
            let (recorder, token) = store.record()
            try store.write { try $0.execute("INSERT INTO nodes (name, x, y) VALUES ('n', 3, 2.5)") }
            let new = try #require(recorder.changes.first?.new)
            #expect(new["x"] == .real(3))  // SQLite stores 3.0 as an integer; a SELECT reads 3.0, so does the event
            #expect(new["y"] == .real(2.5))
            #expect(new["id"] == .integer(1))
            withExtendedLifetime(token) {}
        }
    }
}
