import Dispatch
import Foundation
import StoreTestSupport
import Testing

@testable import ObservableStore

/// Regressions for the problems found in the review of the first version.
@Suite struct ReviewRegressionTests {
    @Test func aCaughtRollbackClassErrorFailsTheWriteAndPublishesNothing() throws {
        try withTemporaryStore { store, _ throws in
            try store.write { tx in
                try tx.execute("CREATE TABLE guarded (v INTEGER)")
                try tx.execute("CREATE TRIGGER refuse BEFORE INSERT ON guarded WHEN NEW.v < 0 BEGIN SELECT RAISE(ROLLBACK, 'negative'); END")
            }
            let (recorder, token) = store.record()
            let error = #expect(throws: StoreError.self) {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "would be rolled back", x: 0, y: 0))
                    _ = try? tx.execute("INSERT INTO guarded VALUES (-1)")  // SQLite rolls everything back here
                }
            }
            #expect(error?.code == .transactionMisuse)
            #expect(recorder.all.isEmpty)
            #expect(try store.repository(NodeVO.self).count() == 0)
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM _store_commits WHERE tables LIKE '%nodes%'") } == .integer(0))
            withExtendedLifetime(token) {}
        }
    }

    @Test func aScriptWhoseSecondStatementDoesNotParseKeepsTheFirstStatementsEvents() throws {
        try withTemporaryStore { store, _ throws in
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            let (recorder, token) = store.record()
            try store.write { tx in
                #expect(throws: StoreError.self) { try tx.execute("UPDATE nodes SET x = 1; UPDAT nodes SET x = 2") }
            }
            #expect(try store.repository(NodeVO.self).fetch(1)?.x == 1)  // SQLite kept the first statement
            #expect(recorder.changes.map(\.summary) == ["update nodes 1"])  // and so does the event
            withExtendedLifetime(token) {}
        }
    }

    @Test func aTableRebuiltInOneWriteDoesNotCrashDecoding() throws {
        try withTemporaryStore { store, _ throws in
            try store.write { try $0.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)") }
            try store.write { try $0.execute("INSERT INTO t VALUES (1, 'a')") }
            let (recorder, token) = store.record()
            try store.write { tx in
                try tx.execute("UPDATE t SET name = 'b'")
                try tx.execute("DROP TABLE t")
                try tx.execute("CREATE TABLE t (a, b, id INTEGER PRIMARY KEY)")
            }
            #expect(recorder.commits.count == 1)
            #expect(recorder.commits.first?.schemaChanged == true)
            withExtendedLifetime(token) {}
        }
    }

    @Test func nestedReadsReuseTheThreadsReaderInsteadOfWaitingForThemselves() throws {
        var configuration = StoreConfiguration()
        configuration.maximumReaderCount = 1
        try withTemporaryStore(configuration: configuration) { store, _ throws in
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            let (outer, inner) = try store.read { tx -> (Int, Int) in
                let inner = try store.repository(NodeVO.self).count()  // would wait forever for the one reader
                let nested = try store.read { try $0.count(Query<NodeVO>()) }
                return (try tx.count(Query<NodeVO>()), inner + nested - 1)
            }
            #expect(outer == 1)
            #expect(inner == 1)
        }
    }

    @Test func releasingATokenInsideAWriteDoesNotWaitForAHandlerThatWrites() throws {
        try withTemporaryStore { store, _ throws in
            let entered = DispatchSemaphore(value: 0)
            let writing = DispatchSemaphore(value: 0)
            let handled = Collector<Int64>()
            var token: ListenerToken? = store.listen("writes-back", filter: .table("nodes")) { event in
                entered.signal()
                writing.wait()
                // Reacting by writing: waits for the writer, which is busy in the write below.
                try store.write { try $0.execute("INSERT INTO user_info (id, name) VALUES (?, 'x')", ["\(event.sequence ?? 0)"]) }
                handled.append(event.sequence ?? 0)
            }
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            entered.wait()
            try store.write { _ in
                writing.signal()  // the handler's write now waits for this one
                token = nil  // cancels inside a write: must not wait for the handler (a deadlock)
            }
            try waitUntil { handled.all.count == 1 }
            #expect(token == nil)
        }
    }

    @Test func aSequenceAskedForAfterCloseEndsAtOnce() async throws {
        try await withTemporaryStore { store, _ in
            store.close()
            var count = 0
            for await _ in store.changes() { count += 1 }
            #expect(count == 0)
        }
    }

    @Test func historyRowsWithImpossibleVersionsAreAConflictNotACrash() throws {
        try withTemporaryStore { store, path throws in
            try store.write { try $0.execute("INSERT INTO _store_migrations VALUES ('store', 0, 'zero', 'x', '2030-01-01T00:00:00.000Z', 1, 'x')") }
            store.close()
            let error = #expect(throws: StoreError.self) { try Store(path: path) }
            #expect(error?.code == .migrationConflict)
        }
    }

    @Test func badSQLIsAnInputError() throws {
        try withTemporaryStore { store, _ throws in
            let error = #expect(throws: StoreError.self) { try store.read { try $0.fetchRows("SELECT * FROM nowhere") } }
            #expect(error?.code == .invalidInput)
        }
    }
}

@Suite struct TouchedTablesTests {
    @Test func theLogNamesOnlyTablesWhoseChangesWereKept() throws {
        try withTemporaryStore { store, _ throws in
            try store.write { tx in
                try? tx.savepoint { tx in
                    try tx.insert(UserInfo(id: "dropped", name: "D"))
                    throw CancellationError()
                }
                try tx.insert(NodeVO(name: "kept", x: 0, y: 0))
            }
            #expect(try store.read { try $0.fetchValue("SELECT tables FROM _store_commits") } == .text("nodes"))
        }
    }

    @Test func theLogNamesEveryKeptTableInFirstSeenOrder() throws {
        try withTemporaryStore { store, _ throws in
            try store.write { tx in
                try tx.insert(UserInfo(id: "first", name: "F"))
                try tx.insert(NodeVO(name: "second", x: 0, y: 0))
                try tx.insert(UserInfo(id: "again", name: "A"))
            }
            #expect(try store.read { try $0.fetchValue("SELECT tables FROM _store_commits") } == .text("user_info,nodes"))
        }
    }
}

@Suite struct ReprepareTests {
    @Test func aCachedSelectStarSeesColumnsAddedLater() throws {
        try withTemporaryStore { store, _ throws in
            struct Wide: Decodable { var name: String; var extra: Int? }
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            let before = try store.read { try $0.fetchAll(Wide.self, sql: "SELECT * FROM nodes") }
            #expect(before.first?.extra == nil)
            try store.write { try $0.execute("ALTER TABLE nodes ADD COLUMN extra INTEGER DEFAULT 7") }
            let after = try store.read { try $0.fetchAll(Wide.self, sql: "SELECT * FROM nodes") }
            #expect(after.first?.extra == 7)
        }
    }

    /// A record selecting all columns, fetched by key through the statement each connection keeps for that.
    struct WideNode: Record {
        static let tableName = "nodes"
        typealias Key = Int64
        var id: Int64?
        var name: String
        var extra: Int?
    }

    @Test func aKeptFetchByKeySeesColumnsAddedAndDroppedLater() throws {
        try withTemporaryStore { store, _ throws in
            let id = try #require(try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0)).id)
            let wide = store.repository(WideNode.self)
            #expect(try wide.fetch(id)?.extra == nil)
            #expect(try store.write { try $0.fetch(WideNode.self, key: id) }?.extra == nil)
            try store.write { try $0.execute("ALTER TABLE nodes ADD COLUMN extra INTEGER DEFAULT 7") }
            #expect(try wide.fetch(id)?.extra == 7)
            #expect(try store.write { try $0.fetch(WideNode.self, key: id) }?.extra == 7)
            try store.write { try $0.execute("ALTER TABLE nodes DROP COLUMN name") }
            let error = #expect(throws: StoreError.self) { try wide.fetch(id) }
            #expect(error?.code == .invalidInput)
            #expect(error?.message.contains("name") == true, "\(error?.message ?? "")")
            #expect(try wide.fetch(id + 1) == nil)
        }
    }
}
