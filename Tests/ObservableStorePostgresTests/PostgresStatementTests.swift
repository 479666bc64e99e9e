#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import TestScheduling
import Testing

/// A caller's statements (storectl's `query` and `--where`): the read-only check, named parameters, and the
/// migration status, as the SQLite engine's `SQLiteTransaction` and `SQLiteStore` offer them.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresStatementTests {
    @Test func readOnlyStatementsAreTheOnesThatOnlyRead() throws {
        try TestServer.withStore { store, _ in
            let readOnly = try store.read { tx in
                try [
                    "SELECT * FROM nodes WHERE name = 'DELETE'", "  with n AS (SELECT 1) SELECT * FROM n", "VALUES (1)",
                    "DELETE FROM nodes", "WITH gone AS (DELETE FROM nodes RETURNING id) SELECT * FROM gone", "CREATE TABLE t (id int)",
                ].map { try tx.isReadOnlyStatement($0) }
            }
            #expect(readOnly == [true, true, true, false, false, false])
            let several = #expect(throws: StoreError.self) {
                try store.read { try $0.isReadOnlyStatement("SELECT 1; DELETE FROM nodes") }
            }
            #expect(several?.code == .invalidInput)
        }
    }

    @Test func namedParametersAreNamedInOrderOfFirstUse() throws {
        try TestServer.withStore { store, _ in
            let names = try store.read { tx in
                try tx.parameterNames("SELECT :b::text, ':a' AS \":c\", :a, :b -- :d\n/* :e */ FROM nodes")
            }
            #expect(names == ["b", "a"])
        }
    }

    @Test func namedArgumentsBindAndTextTakesTheTypeOfItsUse() throws {
        try TestServer.withStore { store, _ in
            try store.write { tx in
                try tx.execute("INSERT INTO nodes (name, x, y) VALUES ('a', 1, 0), ('b', 5, 0), ('it''s $p$', 9, 0)")
            }
            let names = try store.read { tx in
                try tx.fetchRows("SELECT name FROM nodes WHERE x > :min AND x < :max ORDER BY x", named: ["min": "2", "max": 10])
                    .compactMap { $0.value("name", as: String.self) }
            }
            #expect(names == ["b", "it's $p$"])
            // A text holding quotes and the dollar tag stays one value.
            let found = try store.read { tx in
                try tx.fetchRows("SELECT x FROM nodes WHERE name = :n", named: ["n": "it's $p$"]).first?["x"]
            }
            #expect(found == .real(9))
            let missing = #expect(throws: StoreError.self) {
                try store.read { try $0.fetchRows("SELECT :nothing", named: [:]) }
            }
            #expect(missing?.code == .invalidInput)
        }
    }

    @Test func aDatabaseWithoutTheStoreIsNotAStoreWhenNothingMigrates() throws {
        try TestServer.withDatabase { url in
            var configuration = PostgresStoreConfiguration()
            configuration.migrationPolicy = .none
            let refused = #expect(throws: StoreError.self) { try PostgresStore(url: url.text, configuration: configuration) }
            #expect(refused?.code == .notAStore, "\(String(describing: refused))")
            // Migrating installs it.
            try PostgresStore(url: url.text).close()
            try PostgresStore(url: url.text, configuration: configuration).close()
        }
    }

    @Test func migrationStatusListsTheEnginesSet() throws {
        try TestServer.withStore { store, _ in
            let status = try store.migrationStatus()
            #expect(status.pending.isEmpty && status.conflicts.isEmpty && status.unknown.isEmpty)
            #expect(status.entries.filter { $0.set == MigrationSet.storeSetName }.map(\.version) == MigrationSet.postgresStore.migrations.map(\.version))
            try status.requireCurrent()
        }
    }
}
#endif
