import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Events say exactly what committed: nothing for a rolled-back write, the kept part of a script that failed
/// halfway, one commit for a table rebuilt inside one write.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct CommittedEventsTests {
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
}
