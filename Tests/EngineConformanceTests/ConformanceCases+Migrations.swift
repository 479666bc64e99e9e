import Foundation
import ObservableStoreCore
import Testing

extension ConformanceCases {
    /// Opening a new store applies the bundled migrations and records each one (set, version, name, checksum);
    /// opening it again applies nothing more.
    static func migrationHistoryIsRecorded<E: ConformanceEngine>(_ engine: E) throws {
        let history = try withStore(engine) { store -> [String] in
            let applied = try store.appliedMigrations().filter { $0.set == "store" }
            #expect(!applied.isEmpty)
            #expect(applied.map(\.version) == Array(1...applied.count))
            #expect(applied.allSatisfy { !$0.name.isEmpty && !$0.checksum.isEmpty })
            #expect(try store.schemaVersion() == applied.count)
            return applied.map { "\($0.version) \($0.name) \($0.checksum)" }
        }
        let reopened = try withStore(engine) { store in try store.appliedMigrations().filter { $0.set == "store" } }
        #expect(reopened.map { "\($0.version) \($0.name) \($0.checksum)" } == history)
    }

    /// A store migrated by newer code is refused with one error naming the versions, and left unchanged.
    static func aNewerSchemaIsRefusedAndLeftUnchanged<E: ConformanceEngine>(_ engine: E) throws {
        let known = try withStore(engine) { store -> Int in
            let known = try store.schemaVersion()
            try engine.recordFutureMigration(in: store)
            return known
        }
        let before = try engine.migrationHistoryFromOutside()
        let refused = #expect(throws: StoreError.self) { try engine.open().close() }
        #expect(refused?.code == .schemaTooNew)
        #expect(refused?.message.contains("is newer than this code (knows \(String(format: "%04d", known)))") == true)
        #expect(try engine.migrationHistoryFromOutside() == before)
    }
}

/// A service's migration set in SQL both engines accept: `invoices`, then each later step given.
private func billing(_ later: [String]) throws -> [MigrationSet] {
    let files = ["CREATE TABLE invoices (id bigint PRIMARY KEY, total double precision NOT NULL);"] + later
    return [try MigrationSet(name: "billing", migrations: files.enumerated().map { Migration(version: $0 + 1, name: "step_\($0 + 1)", sql: $1) })]
}

extension ConformanceCases {
    /// `rehearsePendingMigrations()` (`storectl migrate plan`) runs the pending files against the real data and
    /// returns the history rows they wrote, yet changes nothing: not the schema, not the data, not the history.
    /// A file that fails is named, and nothing changes either. With nothing pending it returns nothing.
    static func aMigrationRehearsalChangesNothing<E: ConformanceEngine>(_ engine: E) throws {
        let addPaid = "ALTER TABLE invoices ADD COLUMN paid boolean;\nUPDATE invoices SET total = total * 2;"
        let first = try engine.open(migrationSets: try billing([]), policy: .migrate)
        _ = try first.write(origin: nil) { try $0.execute("INSERT INTO invoices (id, total) VALUES (1, 2.5)", []) }
        #expect(try first.rehearsePendingMigrations().isEmpty, "nothing is pending")
        first.close()
        let history = try engine.migrationHistoryFromOutside()

        let store = try engine.open(migrationSets: try billing([addPaid]), policy: .none)
        defer { store.close() }
        let sequence = try store.lastSequence()
        let rehearsed = try store.rehearsePendingMigrations()
        #expect(rehearsed.map { "\($0.set) \($0.version) \($0.name) \($0.checksum)" } == ["billing 2 step_2 \(Migration.checksum(of: addPaid))"])
        #expect(rehearsed.allSatisfy { $0.durationMilliseconds >= 0 && !$0.appliedBy.isEmpty })
        #expect(try engine.migrationHistoryFromOutside() == history)
        #expect(try store.migrationStatus().pending.map(\.version) == [2])
        #expect(try store.read { try $0.fetchValue("SELECT total FROM invoices WHERE id = 1", []) } == .real(2.5))
        #expect(throws: StoreError.self) { try store.read { try $0.fetchValue("SELECT paid FROM invoices", []) } }
        #expect(try store.lastSequence() == sequence, "the rehearsal logged no commit")

        let failing = try engine.open(migrationSets: try billing([addPaid + "\nSELECT no_such_function();"]), policy: .none)
        defer { failing.close() }
        let failed = #expect(throws: StoreError.self) { try failing.rehearsePendingMigrations() }
        #expect(failed?.code == .migrationConflict)
        let message = failed?.message ?? ""
        #expect(message.hasPrefix("0002_step_2") && message.contains("nothing from 0002 was applied"), "\(message)")
        #expect(try engine.migrationHistoryFromOutside() == history)
        #expect(try failing.read { try $0.fetchValue("SELECT total FROM invoices WHERE id = 1", []) } == .real(2.5))

        // `migrate up` agrees with the rehearsal (and the migration lock was let go).
        let migrated = try engine.open(migrationSets: try billing([addPaid]), policy: .migrate)
        defer { migrated.close() }
        #expect(try migrated.appliedMigrations().filter { $0.set == "billing" }.map(\.checksum) == [
            try billing([])[0].migrations[0].checksum, Migration.checksum(of: addPaid),
        ])
        #expect(try migrated.read { try $0.fetchValue("SELECT total FROM invoices WHERE id = 1", []) } == .real(5))
    }

    /// `acceptMigrationChange` (`storectl migrate repair --accept`) re-records the checksum of an applied file that
    /// was edited, returning old and new, after which the history no longer conflicts; it refuses, changing nothing,
    /// a file that is not applied and a version no set has.
    static func anEditedChecksumIsAcceptedOnlyForAnAppliedFile<E: ConformanceEngine>(_ engine: E) throws {
        try engine.open(migrationSets: try billing([]), policy: .migrate).close()
        let applied = try billing([])[0].migrations[0]
        let editedSets = [
            try MigrationSet(name: "billing", migrations: [
                Migration(version: 1, name: "step_1", sql: applied.sql + "\n-- reviewed"),
                Migration(version: 2, name: "step_2", sql: "SELECT 1;"),
            ])
        ]
        let refused = #expect(throws: StoreError.self) { try engine.open(migrationSets: editedSets, policy: .migrate) }
        #expect(refused?.code == .migrationConflict)

        let store = try engine.open(migrationSets: editedSets, policy: .none)
        defer { store.close() }
        #expect(try store.migrationStatus().firstConflict != nil)
        let history = try engine.migrationHistoryFromOutside()
        let unapplied = #expect(throws: StoreError.self) { try store.acceptMigrationChange(version: 2, set: "billing") }
        #expect(unapplied?.code == .notFound)
        #expect(unapplied?.message.contains("0002_step_2 is not applied") == true, "\(unapplied?.message ?? "")")
        let unknown = #expect(throws: StoreError.self) { try store.acceptMigrationChange(version: 9, set: "billing") }
        #expect(unknown?.message == "no migration 0009 in set billing")
        #expect(try engine.migrationHistoryFromOutside() == history)

        let (old, new) = try store.acceptMigrationChange(version: 1, set: "billing")
        #expect(old == applied.checksum)
        #expect(new == editedSets[0].migrations[0].checksum && new != old)
        #expect(try store.migrationStatus().firstConflict == nil)
        #expect(try store.migrationStatus().pending.map(\.version) == [2], "repair never applies anything")
        try engine.open(migrationSets: editedSets, policy: .migrate).close()
    }
}
