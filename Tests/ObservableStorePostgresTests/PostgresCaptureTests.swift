#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import TestScheduling
import Testing

/// Capture on a service's own tables, and `check()` finding it missing or disabled.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresCaptureTests {
    @Test func installCaptureObservesAServiceTableOnce() throws {
        try TestServer.withStore { store, url in
            try store.write { try $0.execute("CREATE TABLE \"Tasks\" (id text PRIMARY KEY, done boolean NOT NULL)") }
            try store.installCapture(on: "Tasks")
            try store.installCapture(on: "Tasks")  // already there: nothing to do
            try withAdmin(url) { admin throws in
                // Another client's write is captured like the store's own.
                try admin.execute("INSERT INTO \"Tasks\" VALUES ('t1', false)")
                try admin.execute("UPDATE \"Tasks\" SET done = true")
                let changes = try admin.query("SELECT tbl, op, new_row->>'done' FROM _store_changes ORDER BY ord").rows
                #expect(changes == [[.text("Tasks"), .text("I"), .text("false")], [.text("Tasks"), .text("U"), .text("true")]])
                // 1 the CREATE TABLE (a schema change), 2 and 3 the writes: numbered at COMMIT, or by the next stamper
                // when the feed's poll held the stamp lock just then.
                try waitUntil { try integer(admin, "SELECT max(seq) FROM _store_commits") == 3 }
                #expect(try integer(admin, "SELECT count(*) FROM _store_commits WHERE schema_changed") == 1)
                // A partly removed capture is reinstalled whole.
                try admin.execute("DROP TRIGGER _store_capture_delete ON \"Tasks\"")
            }
            try store.installCapture(on: "Tasks")
            #expect(try store.check() == [])
            let missing = #expect(throws: StoreError.self) { try store.installCapture(on: "nowhere") }
            #expect(missing?.code == .notFound)
            let own = #expect(throws: StoreError.self) { try store.installCapture(on: "_store_changes") }
            #expect(own?.code == .invalidInput)
        }
    }

    /// A column may have any name: one named like a row alias (`r`) or like the triggers' own (`_store_row`) is logged
    /// as a column, and inserts and deletes log the whole row.
    @Test func aColumnNamedLikeARowAliasIsLoggedAsAColumn() throws {
        try TestServer.withStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE tricky (id bigint PRIMARY KEY, r double precision, _store_row text)") }
            try store.installCapture(on: "tricky")
            let start = try store.lastSequence()
            try store.write { tx in
                try tx.execute("INSERT INTO tricky VALUES (1, 2.5, 'x')")
                try tx.execute("DELETE FROM tricky")
            }
            let changes = try store.commits(after: start).flatMap(\.changes)
            #expect(changes.map(\.operation) == [.insert, .delete])
            for row in [changes.first?.new, changes.last?.old] {
                #expect(row?["id"] == .integer(1))
                #expect(row?["r"] == .real(2.5))
                #expect(row?["_store_row"] == .text("x"))
            }
        }
    }

    @Test func checkReportsAMissingAndADisabledTrigger() throws {
        try TestServer.withStore { store, url in
            #expect(try store.check() == [])
            try store.write { try $0.execute("CREATE TABLE plain (id bigint PRIMARY KEY)") }
            try withAdmin(url) { admin throws in
                try admin.execute("ALTER TABLE nodes DISABLE TRIGGER _store_capture_update")
                try admin.execute("DROP TRIGGER _store_capture_truncate ON user_info")
            }
            #expect(try store.check() == [
                "capture: trigger _store_capture_update on table nodes is disabled",
                "capture: table plain is missing trigger _store_capture_insert, _store_capture_delete, "
                    + "_store_capture_update, _store_capture_truncate",
                "capture: table user_info is missing trigger _store_capture_truncate",
            ])
            try withAdmin(url) { admin throws in
                try admin.execute("ALTER TABLE nodes ENABLE TRIGGER _store_capture_update")
                try admin.execute("DROP TABLE plain")
            }
            try store.installCapture(on: "user_info")
            #expect(try store.check() == [] as [String])
        }
    }
}
#endif
