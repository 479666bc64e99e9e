import Foundation
import StoreMigrations
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// The repository's root folder, found from this file's path (tests may read the source tree; the library must not).
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

private func things(_ sql: [String]) throws -> MigrationSet {
    try MigrationSet(
        name: "things",
        migrations: sql.enumerated().map { Migration(version: $0.offset + 1, name: "step_\($0.offset + 1)", sql: $0.element) })
}

private func configuration(_ sets: MigrationSet..., policy: SQLiteStoreConfiguration.MigrationPolicy = .migrate) -> SQLiteStoreConfiguration {
    var configuration = SQLiteStoreConfiguration()
    configuration.migrationSets = sets
    configuration.migrationPolicy = policy
    return configuration
}

private func history(_ path: String) throws -> [String] {
    let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
    defer { store.close() }
    return try store.appliedMigrations().map { "\($0.set)/\($0.version)/\($0.checksum)" }
}

private let createThings = "CREATE TABLE things (id INTEGER PRIMARY KEY, label TEXT NOT NULL);"
/// How many migrations the library's own set has, and their history entries.
private let storeCount = MigrationSet.store.migrations.count
private let storeEntries = MigrationSet.store.migrations.map { "store/\($0.version)" }

@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct MigrationTests {
    @Test func anEmptyFileMigratesToTheLatestVersion() throws {
        try withTemporaryStore { store, _ in
            let applied = try store.appliedMigrations()
            #expect(applied.map(\.set) == Array(repeating: "store", count: storeCount))
            #expect(applied.map(\.version) == Array(1...storeCount))
            #expect(applied.map(\.name) == MigrationSet.store.migrations.map(\.name))
            #expect(Array(applied.map(\.name).prefix(3)) == ["create_nodes", "create_user_info", "create_change_log"])
            #expect(applied.map(\.checksum) == MigrationSet.store.migrations.map(\.checksum))
            #expect(applied.allSatisfy { $0.appliedBy == "ObservableStore \(SQLiteStore.libraryVersion)" })
            #expect(applied.allSatisfy { abs($0.appliedAt.timeIntervalSinceNow) < 60 })
            #expect(try store.schemaVersion() == MigrationSet.store.latestVersion)
            #expect(try store.read { try $0.fetchValue("PRAGMA application_id") } == .integer(Int64(SQLiteStore.applicationID)))
        }
    }

    @Test func theBundledMigrationsAreExactlyTheFilesOfMigrations() throws {
        let folder = repositoryRoot.appendingPathComponent("Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
            .filter { $0 != "schema.sql" }.sorted()
        #expect(files == BundledMigrations.all.map { $0.id + ".sql" })
        for (id, sql) in BundledMigrations.all {
            let onDisk = try String(contentsOf: folder.appendingPathComponent(id + ".sql"), encoding: .utf8)
            #expect(onDisk == sql, "\(id).sql differs from the compiled-in copy")
        }
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        for file in files {
            #expect(manifest.contains(".embedInCode(\"\(file)\")"), "Package.swift does not embed \(file)")
        }
    }

    @Test func migrationsSumListsEveryFileWithItsChecksum() throws {
        let sum = try String(contentsOf: repositoryRoot.appendingPathComponent("Migrations/migrations.sum"), encoding: .utf8)
        let expected = MigrationSet.store.migrations.map { "\(Migration.format($0.version)) \($0.checksum)" }
        let lines = sum.split(separator: "\n").map(String.init)
        #expect(lines == expected, "expected migrations.sum:\n\(expected.joined(separator: "\n"))")
    }

    @Test func theSchemaMatchesTheGoldenSnapshot() throws {
        let snapshot = repositoryRoot.appendingPathComponent("Migrations/schema.sql")
        try withTemporaryStore { store, _ in
            let schema = try store.schemaSQL()
            if ProcessInfo.processInfo.environment["UPDATE_SCHEMA_SNAPSHOT"] == "1" {
                try Data(schema.utf8).write(to: snapshot)
            }
            let committed = try String(contentsOf: snapshot, encoding: .utf8)
            #expect(schema == committed, "schema differs from Migrations/schema.sql; rerun with UPDATE_SCHEMA_SNAPSHOT=1 after review")
        }
    }

    /// 0005 drops AUTOINCREMENT from the change log: kept records stay, and sequences go on from the last one
    /// ever assigned, even when the old rule had pruned the log empty.
    @Test(arguments: [false, true])
    func migration0005KeepsTheLogAndNeverReusesASequence(prunedEmpty: Bool) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("log.sqlite").path
            try StoreMigrator.migrate(path: path, upTo: 4)
            do {
                let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
                defer { store.close() }
                for index in 1...3 { try store.write { try $0.insert(NodeVO(name: "n\(index)", x: 0, y: 0)) } }
                #expect(try store.read { try $0.fetchValue("SELECT seq FROM sqlite_sequence WHERE name = '_store_commits'") } == .integer(3))
                if prunedEmpty { try store.write { try $0.execute("DELETE FROM _store_commits") } }
            }
            let store = try SQLiteStore(path: path)  // migrates to 5, 6 and 7
            defer { store.close() }
            #expect(try store.schemaVersion() == 7)
            #expect(try store.read { try $0.fetchValue("SELECT sql LIKE '%AUTOINCREMENT%' FROM sqlite_master WHERE name = '_store_commits'") } == .integer(0))
            // 0006 and 0007 are logged as schema changes (0005 ran before the log could hold markers), right after
            // the last sequence ever assigned.
            #expect(try store.lastSequence() == 5)
            let kept = try store.read { try $0.fetchRows("SELECT seq, change_count FROM _store_commits ORDER BY seq") }
            #expect(kept.map { $0["seq"] } == (prunedEmpty ? [3, 4, 5] : [1, 2, 3, 4, 5]).map { DatabaseValue.integer($0) })
            let commits = try store.commits(after: 0)
            #expect(commits.suffix(2).map(\.origin) == ["migration:store/0006_change_log_external_marker", "migration:store/0007_change_log_pieces"])
            #expect(commits.suffix(2).allSatisfy { $0.schemaChanged })
            if prunedEmpty {
                // The placeholder is an empty commit; a listener reading from the start sees no change in it.
                #expect(kept.first?["change_count"] == .integer(0))
                #expect(commits.map(\.sequence) == [3, 4, 5] && commits.allSatisfy { $0.changes.isEmpty })
            }
            try store.write { try $0.insert(NodeVO(name: "after", x: 0, y: 0)) }
            #expect(try store.lastSequence() == 6)
        }
    }

    /// Pruning never removes the newest commit record: the next sequence is computed from it.
    @Test func pruningKeepsTheNewestCommitSoSequencesNeverRepeat() throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = RetentionPolicy(minimumKeptCommits: 0, minimumKeptAge: nil, hardCapCommits: 0)
        try withTemporaryStore(configuration: configuration) { store, _ in
            for index in 1...5 { try store.write { try $0.insert(NodeVO(name: "n\(index)", x: 0, y: 0)) } }
            try store.pruneChangeLog()
            #expect(try store.read { try $0.fetchValue("SELECT group_concat(seq) FROM _store_commits") } == .text("5"))
            try store.write { try $0.insert(NodeVO(name: "next", x: 0, y: 0)) }
            #expect(try store.lastSequence() == 6)
        }
    }

    @Test func stepByStepMigrationsKeepTheDataOfEachVersion() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("steps.sqlite").path
            try StoreMigrator.migrate(path: path, upTo: 1)
            do {
                let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
                defer { store.close() }
                #expect(try store.schemaVersion() == 1)
                #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'user_info'") } == .integer(0))
                try store.write { try $0.execute("INSERT INTO nodes (name, x, y) VALUES ('seeded at 1', 3, 4)") }
            }
            // A service set, in three steps, with data seeded at each step.
            let set = try things([
                createThings,
                "ALTER TABLE things ADD COLUMN weight REAL NOT NULL DEFAULT 1;",
                "UPDATE things SET weight = weight * 10 WHERE label LIKE 'heavy%';",
            ])
            try StoreMigrator.migrate(path: path, upTo: 1, set: "things", configuration: configuration(set))
            do {
                let store = try SQLiteStore(path: path, configuration: configuration(set, policy: .none))
                defer { store.close() }
                #expect(try store.schemaVersion() == storeCount)  // the store set was completed first
                try store.write { try $0.execute("INSERT INTO things (label) VALUES ('heavy one'), ('light one')") }
            }
            try StoreMigrator.migrate(path: path, upTo: 2, set: "things", configuration: configuration(set))
            let store = try SQLiteStore(path: path, configuration: configuration(set))
            defer { store.close() }
            #expect(try store.repository(NodeVO.self).fetchAll().map(\.name) == ["seeded at 1"])
            let weights = try store.read { try $0.fetchRows("SELECT label, weight FROM things ORDER BY id") }
            #expect(weights.map { $0.value("weight", as: Double.self) } == [10, 1])
            #expect(try store.appliedMigrations().map { "\($0.set)/\($0.version)" } == storeEntries + ["things/1", "things/2", "things/3"])
        }
    }

    @Test func anEditedAppliedFileIsAConflictNamingTheFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("edited.sqlite").path
            try SQLiteStore(path: path, configuration: configuration(try things([createThings]))).close()
            let before = try history(path)
            let edited = try things(["CREATE TABLE things (id INTEGER PRIMARY KEY, label TEXT);"])
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(edited)) }
            #expect(error?.code == .migrationConflict)
            #expect(error?.message.contains("0001_step_1.sql was changed after it was applied") == true)
            #expect(error?.message.contains("storectl migrate repair --accept 0001") == true)
            #expect(try history(path) == before)
        }
    }

    @Test func lineEndingsAndABOMAreNotChanges() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("crlf.sqlite").path
            let lf = "-- things\nCREATE TABLE things (id INTEGER PRIMARY KEY,\n  label TEXT NOT NULL);\n"
            try SQLiteStore(path: path, configuration: configuration(try things([lf]))).close()
            let crlf = "\u{FEFF}" + lf.replacingOccurrences(of: "\n", with: "\r\n")
            #expect(Migration.checksum(of: crlf) == Migration.checksum(of: lf))
            try SQLiteStore(path: path, configuration: configuration(try things([crlf]))).close()
            // Other white space still counts.
            let spaced = lf.replacingOccurrences(of: "  label", with: "   label")
            #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(try things([spaced]))) }
            // A lone CR is not a line ending and is kept.
            #expect(Migration.checksum(of: "a\rb") != Migration.checksum(of: "a\nb"))
        }
    }

    @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("newer.sqlite").path
            try SQLiteStore(path: path, configuration: configuration(try things([createThings, "CREATE INDEX things_label ON things(label);"]))).close()
            let before = try history(path)
            let older = try things([createThings])
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(older)) }
            #expect(error?.code == .schemaTooNew)
            #expect(error?.message == "schema 0002 is newer than this code (knows 0001) (migration set 'things'); upgrade the code")
            #expect(try history(path) == before)
            #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(older, policy: .validateOnly)) }

            // The library's own set: a store migrated by a future version.
            let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
            let future = storeCount + 1
            try store.write { tx in
                try tx.execute(
                    "INSERT INTO _store_migrations VALUES ('store', ?, 'future', 'x', '2030-01-01T00:00:00.000Z', 1, 'future')",
                    [future])
                try tx.execute("PRAGMA user_version = \(future)")
            }
            store.close()
            let refused = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
            #expect(refused?.code == .schemaTooNew)
            #expect(
                refused?.message
                    == "schema \(Migration.format(future)) is newer than this code (knows \(Migration.format(storeCount))); upgrade the code")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(!files.contains { $0.hasSuffix(".bak") })
        }
    }

    @Test func aFailingMigrationLeavesTheStoreAtThePreviousVersion() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("failing.sqlite").path
            let broken = try things([
                createThings,
                "-- a comment line\nCREATE TABLE extra (x);\nINSERT INTO extra VALUES (1);\n\nINSERT INTO nowhere VALUES (1);\n",
            ])
            try SQLiteStore(path: path, configuration: configuration(try things([createThings]))).close()
            let before = try history(path)
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(broken)) }
            #expect(error?.code == .migrationConflict)
            #expect(
                error?.message
                    == "0002_step_2 failed at line 5: no such table: nowhere; nothing from 0002 was applied; 0001 of set things is unchanged")
            #expect(try history(path) == before)
            let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'extra'") } == .integer(0))
            store.close()
            // Fixed, it applies.
            try SQLiteStore(path: path, configuration: configuration(try things([createThings, "CREATE TABLE extra (x);"]))).close()
            #expect(try history(path).count == before.count + 1)
        }
    }

    @Test func aSyntaxErrorNamesItsLine() throws {
        try withTemporaryStore { _, path in
            let error = #expect(throws: StoreError.self) {
                try SQLiteStore(path: path, configuration: configuration(try things(["CREATE TABLE ok (x);\nCREATE TABEL bad (x);"])))
            }
            #expect(error?.message.hasPrefix("0001_step_1 failed at line 2: near \"TABEL\": syntax error") == true)
        }
    }

    @Test func foreignKeyViolationsRollTheMigrationBack() throws {
        try withTemporaryStore { _, path in
            let orphan = try things([
                "CREATE TABLE things (id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id));\n"
                    + "INSERT INTO things (node_id) VALUES (404);"
            ])
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(orphan)) }
            #expect(error?.code == .constraint)
            #expect(error?.message.contains("foreign key violations (things rowid 1 → nodes)") == true)
            #expect(try history(path).count == storeCount)
        }
    }

    @Test func aPendingFileBelowAnAppliedOneIsOutOfOrder() throws {
        try withTemporaryStore { _, path in
            let set = try things([createThings, "CREATE TABLE two (x);", "CREATE TABLE three (x);"])
            try SQLiteStore(path: path, configuration: configuration(set)).close()
            let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
            try store.write { try $0.execute("DELETE FROM _store_migrations WHERE set_name = 'things' AND version = 2") }
            store.close()
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(set)) }
            #expect(error?.code == .migrationConflict)
            #expect(error?.message == "0002_step_2.sql is pending but 0003 is already applied (out of order)")
            // The status check (storectl's, and the requireCurrent policy's) says it in the same words.
            let status = try SQLiteStore(path: path, configuration: configuration(set, policy: .none))
            defer { status.close() }
            let checked = #expect(throws: StoreError.self) { try status.migrationStatus().requireCurrent() }
            #expect(checked?.message == error?.message)
        }
    }

    @Test func requireCurrentOpensOnlyAStoreAtTheLatestVersionsAndChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("current.sqlite").path
            let set = try things([createThings, "CREATE TABLE two (x);", "CREATE TABLE three (x);"])
            // A new file: everything is pending, nothing is created.
            let fresh = #expect(throws: StoreError.self) {
                try SQLiteStore(path: path, configuration: configuration(set, policy: .requireCurrent))
            }
            #expect(fresh?.code == .migrationNeeded)
            #expect(try history(path).isEmpty)

            // Older: names the pending files and applies none of them.
            try SQLiteStore(path: path, configuration: configuration(set, policy: .migrateUpTo(version: 1, set: "things"))).close()
            let before = try history(path)
            let older = #expect(throws: StoreError.self) {
                try SQLiteStore(path: path, configuration: configuration(set, policy: .requireCurrent))
            }
            #expect(older?.code == .migrationNeeded)
            #expect(
                older?.message
                    == "store is at 0001, this code needs 0003 (migration set 'things'); pending: things/0002_step_2.sql, things/0003_step_3.sql")
            #expect(try history(path) == before)

            // Current: opens.
            try SQLiteStore(path: path, configuration: configuration(set)).close()
            try SQLiteStore(path: path, configuration: configuration(set, policy: .requireCurrent)).close()

            // Newer: the same error as every other policy.
            let newer = #expect(throws: StoreError.self) {
                try SQLiteStore(path: path, configuration: configuration(try things([createThings]), policy: .requireCurrent))
            }
            #expect(newer?.code == .schemaTooNew)
            #expect(newer?.message == "schema 0003 is newer than this code (knows 0001) (migration set 'things'); upgrade the code")

            // An edited history: a conflict naming the file, the checksums and the repair command.
            let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
            try store.write { try $0.execute("UPDATE _store_migrations SET checksum = 'deadbeef' WHERE set_name = 'things' AND version = 2") }
            store.close()
            let changed = #expect(throws: StoreError.self) {
                try SQLiteStore(path: path, configuration: configuration(set, policy: .requireCurrent))
            }
            #expect(changed?.code == .migrationConflict)
            #expect(changed?.message.hasPrefix("0002_step_2.sql was changed after it was applied (history sha256 deadbeef…") == true)
            #expect(changed?.message.hasSuffix("after review run `storectl migrate repair --accept 0002`") == true)
            // The migrator (any policy that migrates) and the status check (storectl's) say it in the same words.
            let migrating = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(set)) }
            let status = try SQLiteStore(path: path, configuration: configuration(set, policy: .none))
            let checked = #expect(throws: StoreError.self) { try status.migrationStatus().requireCurrent() }
            status.close()
            #expect(migrating?.message == changed?.message && checked?.message == changed?.message)
        }
    }

    @Test func theStatusCheckAndThePolicyAgree() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("status.sqlite").path
            try StoreMigrator.migrate(path: path, upTo: 1)
            let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
            defer { store.close() }
            let status = try store.migrationStatus()
            let fromStatus = #expect(throws: StoreError.self) { try status.requireCurrent() }
            let fromPolicy = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(policy: .requireCurrent)) }
            #expect(fromStatus?.code == .migrationNeeded)
            #expect(fromStatus?.message == fromPolicy?.message)
            let pendingFiles = status.pending.map { "\(Migration.format($0.version))_\($0.name).sql" }
            #expect(fromStatus?.message.hasSuffix("pending: " + pendingFiles.joined(separator: ", ")) == true)
        }
    }

    @Test func numberingMustBeContiguousAndNamesWellFormed() throws {
        let gap = #expect(throws: StoreError.self) {
            try MigrationSet(name: "gap", migrations: [
                Migration(version: 1, name: "a", sql: ""), Migration(version: 3, name: "c", sql: ""),
            ])
        }
        #expect(gap?.message.contains("0003_c.sql follows 0001_a.sql; expected version 0002") == true)
        let duplicate = #expect(throws: StoreError.self) {
            try MigrationSet(name: "dup", migrations: [
                Migration(version: 1, name: "a", sql: ""), Migration(version: 1, name: "b", sql: ""),
            ])
        }
        #expect(duplicate?.message.contains("duplicate version 0001") == true)
        for bad in ["1_x.sql", "0001-x.sql", "0000_x.sql", "0001_.sql", "0001_Bad.sql", "abcd_x.sql"] {
            #expect(throws: StoreError.self, "\(bad)") { try Migration(fileName: bad, sql: "") }
        }
        let good = try Migration(fileName: "0012_add_tags.sql", sql: "")
        #expect(good.version == 12)
        #expect(good.name == "add_tags")
        #expect(good.id == "0012_add_tags")
    }

    @Test func aSetLoadsFromADirectory() throws {
        try withTemporaryDirectory { directory in
            let folder = try writeMigrationFolder(
                ["0001_create_things.sql": createThings, "0002_add_index.sql": "CREATE INDEX i ON things(label);", "README.md": "ignored"],
                named: "migrations", in: directory)
            let set = try MigrationSet(name: "things", directory: folder)
            #expect(set.migrations.map(\.id) == ["0001_create_things", "0002_add_index"])
            #expect(throws: StoreError.self) { try MigrationSet(name: "x", directory: directory.appendingPathComponent("none")) }
        }
    }

    @Test func aBackupIsTakenBeforeMigratingAnExistingStore() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("backed.sqlite").path
            try SQLiteStore(path: path, configuration: configuration(try things([createThings]))).close()
            #expect(!FileManager.default.fileExists(atPath: path + ".pre-0001.bak"))  // a fresh store needs none
            try SQLiteStore(path: path, configuration: configuration(try things([createThings, "CREATE TABLE more (x);"]))).close()
            let backupPath = path + ".pre-things-0002.bak"
            let backup = try SQLiteStore(path: backupPath, configuration: configuration(policy: .none))
            defer { backup.close() }
            #expect(try backup.appliedMigrations().map { "\($0.set)/\($0.version)" } == storeEntries + ["things/1"])

            var noBackup = configuration(try things([createThings, "CREATE TABLE more (x);", "CREATE TABLE most (x);"]))
            noBackup.backupBeforeMigrating = false
            try SQLiteStore(path: path, configuration: noBackup).close()
            #expect(!FileManager.default.fileExists(atPath: path + ".pre-things-0003.bak"))
        }
    }

    @Test func aHeldMigrationLockIsABusyErrorNamingTheHolder() throws {
        try withTemporaryStore { _, path in
            let lock = try MigrationLock(databasePath: path, timeout: .seconds(1))
            var waiting = configuration(try things([createThings]))
            waiting.migrationLockTimeout = .milliseconds(200)
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: waiting) }
            #expect(error?.code == .busy)
            #expect(error?.message.contains("another process is migrating \(path) (pid \(getpid()), since ") == true)
            // An up-to-date store needs no lock to open.
            try SQLiteStore(path: path).close()
            withExtendedLifetime(lock) {}
            #expect(try history(path).count == storeCount)
        }
    }

    /// A failed attempt closes its descriptor exactly once. A second close would close whatever file another
    /// thread had opened under the same number in between: CI saw a crash test's freshly opened store fail with
    /// SQLite's `disk I/O error` (`SQLITE_IOERR_FSTAT`) while this suite's busy-lock test ran beside it.
    @Test func aFailedLockAttemptClosesNoOtherThreadsFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("lock.sqlite").path
            let holder = try MigrationLock(databasePath: path, timeout: .zero)
            defer { withExtendedLifetime(holder) {} }
            let opener = FileIdentityChecker()
            opener.start()
            for _ in 0..<3000 {
                #expect(throws: StoreError.self) { try MigrationLock(databasePath: path, timeout: .zero) }
            }
            let (checked, stolen) = opener.stop()
            #expect(checked > 0, "the other thread never opened a file: the test tested nothing")
            #expect(stolen == 0, "\(stolen) of \(checked) files the other thread held were closed or replaced under it")
        }
    }

    @Test func twoProcessesMigratingAtOnceApplyEachFileOnce() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("race.sqlite").path
            // Slow enough that the two processes overlap.
            let folder = try writeMigrationFolder(
                [
                    "0001_create_numbers.sql": "CREATE TABLE numbers (n INTEGER NOT NULL);",
                    "0002_fill_numbers.sql": """
                        WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300000)
                        INSERT INTO numbers SELECT n FROM c;
                        """,
                ], named: "numbers", in: directory)
            let first = try RunningProcess("store-fixture", ["migrate", path, "numbers", folder.path])
            let second = try RunningProcess("store-fixture", ["migrate", path, "numbers", folder.path])
            let results = [first.wait(), second.wait()]
            for result in results {
                #expect(result.status == 0, "\(result.stderr)")
            }
            let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
            defer { store.close() }
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM numbers") } == .integer(300_000))
            let applied = try store.appliedMigrations()
            #expect(applied.map { "\($0.set)/\($0.version)" } == ["numbers/1", "numbers/2"] + storeEntries)
            // Both processes saw the same complete history.
            #expect(results[0].stdout == results[1].stdout)
        }
    }

    @Test func noTransactionFilesRunOnlyPragmaAndVacuum() throws {
        try withTemporaryStore { _, path in
            let vacuum = try things([createThings, "-- storectl: no-transaction\nVACUUM;\n"])
            #expect(!vacuum.migrations[1].runsInTransaction)
            try SQLiteStore(path: path, configuration: configuration(vacuum)).close()
            #expect(try history(path).count == storeCount + 2)

            let sneaky = try things([createThings, "-- storectl: no-transaction\nVACUUM;\n", "-- storectl: no-transaction\nDROP TABLE things;"])
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(sneaky)) }
            #expect(error?.message.contains("`DROP` is not allowed in a no-transaction migration") == true, "\(String(describing: error))")
            let store = try SQLiteStore(path: path, configuration: configuration(policy: .none))
            defer { store.close() }
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'things'") } == .integer(1))
        }
    }

    @Test func transactionControlInsideAMigrationIsRefused() throws {
        try withTemporaryStore { _, path in
            let set = try things([createThings + "\nCOMMIT;\nCREATE TABLE after_commit (x);"])
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration(set)) }
            #expect(error?.message.contains("`COMMIT` is not allowed in a migration") == true)
            #expect(try history(path).count == storeCount)
        }
    }

    @Test func validateOnlyAppliesNothing() throws {
        try withTemporaryStore { _, path in
            let store = try SQLiteStore(path: path, configuration: configuration(try things([createThings]), policy: .validateOnly))
            defer { store.close() }
            #expect(try store.appliedMigrations().count == storeCount)
        }
    }

    @Test func migrateUpToAnUnknownSetIsAnError() throws {
        try withTemporaryDirectory { directory in
            let error = #expect(throws: StoreError.self) {
                try StoreMigrator.migrate(path: directory.appendingPathComponent("x.sqlite").path, upTo: 1, set: "nope")
            }
            #expect(error?.code == .invalidInput)
        }
    }
}

/// A thread that keeps opening `/dev/null` and checks, while it holds each descriptor, that the descriptor still
/// names the file it opened: a stray `close` from another thread shows up as a failed `fstat` or another inode.
private final class FileIdentityChecker: @unchecked Sendable {
    // @unchecked: the counters and `stopRequested` are only touched under `lock`.
    private let lock = NSLock()
    private var stopRequested = false
    private var checked = 0
    private var stolen = 0
    private let finished = DispatchSemaphore(value: 0)

    func start() {
        Thread { [self] in
            while !lock.withLock({ stopRequested }) {
                let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { continue }
                var opened = stat()
                fstat(descriptor, &opened)
                var intact = true
                for _ in 0..<20 {
                    var now = stat()
                    if fstat(descriptor, &now) != 0 || now.st_ino != opened.st_ino || now.st_dev != opened.st_dev {
                        intact = false
                        break
                    }
                }
                // A descriptor closed under us is not closed again: its number may already be someone else's.
                if intact { close(descriptor) }
                lock.withLock {
                    checked += 1
                    if !intact { stolen += 1 }
                }
            }
            finished.signal()
        }.start()
    }

    /// Stops the thread (waiting for it at most 20 s); returns how many descriptors it checked and how many
    /// were closed under it.
    func stop() -> (checked: Int, stolen: Int) {
        lock.withLock { stopRequested = true }
        _ = finished.wait(timeout: .now() + defaultWaitSeconds)
        return lock.withLock { (checked, stolen) }
    }
}
