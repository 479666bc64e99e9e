import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// The repository's Migrations folder, found from this file's path.
private let migrationsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Migrations")

private let latest = MigrationSet.store.latestVersion

/// `NNNN sha256` lines for `files` (name → SQL), as `migrations.sum` holds them.
private func sumFile(_ files: [String: String]) -> String {
    files.keys.sorted().map { name in "\(name.prefix(4)) \(Migration.checksum(of: files[name]!))\n" }.joined()
}

/// A migration folder with `files` and, unless `sum` is nil, a `migrations.sum`.
private func folder(_ files: [String: String], sum: String?, in directory: URL, named name: String = "migrations") throws -> URL {
    var all = files
    if let sum { all["migrations.sum"] = sum }
    return try writeMigrationFolder(all, named: name, in: directory)
}

private let createA = "CREATE TABLE a (id INTEGER PRIMARY KEY);\n"
private let createB = "CREATE TABLE b (id INTEGER PRIMARY KEY);\n"
private let createC = "CREATE TABLE c (id INTEGER PRIMARY KEY);\n"

/// Adds a history row of a version this storectl does not know, as newer code would have.
private func recordFutureMigration(_ path: String) throws {
    try withStore(path) { store in
        try store.write { tx in
            try tx.execute(
                "INSERT INTO _store_migrations VALUES ('store', 99, 'future', 'x', '2030-01-01T00:00:00.000Z', 1, 'future')")
        }
    }
}

/// Changes the recorded checksum of 0001, as if its file had been edited after it was applied.
private func editHistoryOfFirstMigration(_ path: String) throws {
    try withStore(path) { store in
        try store.write { tx in try tx.execute("UPDATE _store_migrations SET checksum = 'deadbeef' WHERE version = 1") }
    }
}

/// Schema states (older, newer, edited history) and the `migrate` commands (STORECTL.md C.5).
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlMigrationTests {
    // MARK: - An older schema

    @Test func dataCommandsRefuseAnOlderSchemaAndMigrateNothing() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 2)
            for command in [["list", "nodes"], ["insert", "nodes", #"{"name":"n","x":1,"y":2}"#], ["get", "nodes", "1"]] {
                expectFailure(
                    try cli(["--db", path] + command), exit: 6, code: "migration_needed", "run `storectl migrate up`")
            }
            #expect(try appliedStoreVersions(path) == [1, 2], "the CLI never migrates implicitly")
        }
    }

    @Test func theMigrateFlagAppliesPendingMigrationsFirst() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 2)
            let result = try cli(["--db", path, "list", "nodes", "--migrate"])
            expectSuccess(result)
            #expect(result.lines.isEmpty, "\(result)")
            #expect(try appliedStoreVersions(path) == Array(1...latest))
        }
    }

    @Test func infoWorksOnAnOlderSchema() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 2)
            let result = try cli(["--db", path, "info"])
            expectSuccess(result)
            let info = try jsonObject(try #require(result.lines.first))
            #expect(info["state"] != nil, "\(result.stdout)")
            #expect(try appliedStoreVersions(path) == [1, 2])
        }
    }

    @Test func migrateStatusExitsSixWithExitCodeWhenSomethingIsPending() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 2)
            let status = try cli(["--db", path, "migrate", "status"])
            expectSuccess(status)
            #expect(status.stdout.contains("pending"), "\(status)")
            let strict = try cli(["--db", path, "migrate", "status", "--exit-code"])
            #expect(strict.status == 6, "\(strict)")
            #expect(try appliedStoreVersions(path) == [1, 2])
        }
    }

    @Test func migrateStatusExitsZeroOnAnUpToDateStore() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectSuccess(try cli(["--db", path, "migrate", "status"]))
            expectSuccess(try cli(["--db", path, "migrate", "status", "--exit-code"]))
        }
    }

    @Test func migrateUpAppliesWhatIsPendingAndKeepsTheData() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 1)
            try withStore(path) { store in
                try store.write { try $0.execute("INSERT INTO nodes (name, x, y) VALUES ('seeded at 1', 3, 4)") }
            }
            let result = try cli(["--db", path, "migrate", "up"])
            expectSuccess(result)
            #expect(result.stderr.contains("applied"), "\(result)")
            #expect(try appliedStoreVersions(path) == Array(1...latest))
            #expect(try allNodes(path).map(\.name) == ["seeded at 1"])
            #expect(
                FileManager.default.fileExists(atPath: path + ".pre-0002.bak"), "a backup is taken before migrating (C.5 step 3)")
            let list = try cli(["--db", path, "list", "nodes"])
            expectSuccess(list)
            #expect(list.lines.count == 1)
        }
    }

    @Test func migrateUpOnAnUpToDateStoreHasNothingToDo() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "migrate", "up"])
            expectSuccess(result)
            #expect(try appliedStoreVersions(path) == Array(1...latest))
        }
    }

    @Test func twoMigrateUpsAtOnceApplyEachFileOnce() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 1)
            let storectl = try storectlURL().path
            let up = "\(quotedForShell(storectl)) --db \(quotedForShell(path)) migrate up"
            let script =
                "\(up) >first.out 2>first.err & \(up) >second.out 2>second.err; second=$?; wait $!; first=$?; "
                + "echo \"$first $second\"; cat first.err second.err >&2"
            let result = try shell(script, directory: directory)
            let statuses = result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            #expect(statuses.count == 2, "\(result)")
            #expect(statuses.allSatisfy { [0, 5].contains($0) } && statuses.contains(0), "\(result)")
            #expect(try appliedStoreVersions(path) == Array(1...latest))
        }
    }

    // MARK: - A newer schema

    @Test func aSchemaNewerThanStorectlIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 0, y: 0)])
            try recordFutureMigration(path)
            for command in [["list", "nodes"], ["insert", "nodes", #"{"name":"n","x":1,"y":2}"#], ["migrate", "up"]] {
                expectFailure(try cli(["--db", path] + command), exit: 7, code: "schema_too_new", "schema 0099 is newer")
            }
            #expect(try rowCount(path) == 1)
        }
    }

    @Test func infoAndBackupWorkOnANewerSchema() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try recordFutureMigration(path)
            expectSuccess(try cli(["--db", path, "info"]))
            let copy = storePath(in: directory, "copy.sqlite")
            let backup = try cli(["--db", path, "backup", copy])
            expectSuccess(backup)
            #expect(FileManager.default.fileExists(atPath: copy))
        }
    }

    // MARK: - migrate plan

    @Test func planRehearsesEveryPendingFileAndChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 1)
            try withStore(path) { store in
                try store.write { try $0.execute("INSERT INTO nodes (name, x, y) VALUES ('seeded at 1', 3, 4)") }
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let temporary = directory.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            let plan = try cli(["--db", path, "migrate", "plan", "--format", "ndjson"], environment: ["TMPDIR": temporary.path])
            expectSuccess(plan)
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "the copy is removed")
            let rows = try jsonLines(plan)
            #expect(rows.map { $0["version"] as? String } == (2...latest).map(fourDigits), "\(plan)")
            #expect(rows.allSatisfy { $0["result"] as? String == "ok" && ($0["duration_ms"] as? Int ?? -1) >= 0 }, "\(plan)")
            #expect(rows.first?["name"] as? String == MigrationSet.store.migrations[1].name)
            #expect(try appliedStoreVersions(path) == [1], "the rehearsal ran on a copy")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("store.sqlite.pre-") }.isEmpty)
        }
    }

    @Test func planNamesAFileThatFailsOnTheDataAndChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 1)
            // A table the next file creates, made by hand: 0002 fails on this store's data.
            try withStore(path) { store in try store.write { try $0.execute("CREATE TABLE user_info (id TEXT)") } }
            expectFailure(try cli(["--db", path, "migrate", "plan"]), exit: 8, code: "migration_conflict", "0002_create_user_info")
            #expect(try appliedStoreVersions(path) == [1])
        }
    }

    @Test func planHasNothingToDoOnAnUpToDateStoreAndRefusesANewerOne() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let current = try cli(["--db", path, "migrate", "plan"])
            expectSuccess(current)
            #expect(current.stdout.isEmpty && current.stderr.contains("nothing to do"), "\(current)")
            try recordFutureMigration(path)
            expectFailure(try cli(["--db", path, "migrate", "plan"]), exit: 7, code: "schema_too_new", "schema 0099 is newer")
        }
    }

    // MARK: - An edited history

    @Test func anEditedMigrationIsAConflictNamingTheFile() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try editHistoryOfFirstMigration(path)
            expectFailure(
                try cli(["--db", path, "list", "nodes"]), exit: 8, code: "migration_conflict", "0001_create_nodes.sql",
                "migrate repair --accept 0001")
            #expect(try cli(["--db", path, "migrate", "status"]).status == 8)
        }
    }

    @Test func repairAcceptsTheEditedChecksumAndPrintsOldAndNew() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try editHistoryOfFirstMigration(path)
            let result = try cli(["--db", path, "migrate", "repair", "--accept", "0001"])
            expectSuccess(result)
            let output = result.stdout + result.stderr
            let fileChecksum = MigrationSet.store.migrations[0].checksum
            #expect(output.contains("deadbeef"), "\(result)")
            #expect(output.contains("->"), "\(result)")
            #expect(output.contains(String(fileChecksum.prefix(12))), "\(result)")
            let recorded = try withStore(path) { try $0.appliedMigrations().first { $0.version == 1 }?.checksum }
            #expect(recorded == fileChecksum)
            expectSuccess(try cli(["--db", path, "list", "nodes"]))
        }
    }

    @Test func repairNeverMarksAnUnappliedFileAsApplied() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try StoreMigrator.migrate(path: path, upTo: 2)
            let result = try cli(["--db", path, "migrate", "repair", "--accept", "0003"])
            #expect(result.status != 0, "\(result)")
            #expect(parseError(result.stderr) != nil, "\(result)")
            #expect(try appliedStoreVersions(path) == [1, 2])
        }
    }

    // MARK: - migrate verify / hash (files only)

    @Test func verifyAcceptsTheRepositorysMigrations() throws {
        try withTemporaryDirectory { directory in
            let result = try cli(["migrate", "verify", "--dir", migrationsFolder.path], directory: directory)
            expectSuccess(result)
        }
    }

    @Test func verifyAcceptsAContiguousFolderWithAMatchingSum() throws {
        try withTemporaryDirectory { directory in
            let files = ["0001_create_a.sql": createA, "0002_create_b.sql": createB]
            let dir = try folder(files, sum: sumFile(files), in: directory)
            expectSuccess(try cli(["migrate", "verify", "--dir", dir.path], directory: directory))
        }
    }

    @Test func verifyRejectsAGap() throws {
        try withTemporaryDirectory { directory in
            let files = ["0001_create_a.sql": createA, "0003_create_c.sql": createC]
            let dir = try folder(files, sum: sumFile(files), in: directory)
            let error = expectFailure(try cli(["migrate", "verify", "--dir", dir.path], directory: directory), exit: 8)
            #expect(error.map { $0.message.contains("0002") || $0.message.contains("0003") } == true, "the gap is named")
        }
    }

    @Test func verifyRejectsADuplicateNumber() throws {
        try withTemporaryDirectory { directory in
            let files = ["0001_create_a.sql": createA, "0002_create_b.sql": createB, "0002_create_c.sql": createC]
            let sum = sumFile(["0001_create_a.sql": createA, "0002_create_b.sql": createB])
            let dir = try folder(files, sum: sum, in: directory)
            expectFailure(try cli(["migrate", "verify", "--dir", dir.path], directory: directory), exit: 8, "0002")
        }
    }

    @Test func verifyRejectsAChangedSumLine() throws {
        try withTemporaryDirectory { directory in
            let files = ["0001_create_a.sql": createA, "0002_create_b.sql": createB]
            let changedLine = sumFile(files).replacingOccurrences(
                of: Migration.checksum(of: createB), with: String(repeating: "0", count: 64))
            let dir = try folder(files, sum: changedLine, in: directory)
            expectFailure(try cli(["migrate", "verify", "--dir", dir.path], directory: directory), exit: 8, "0002")
        }
    }

    @Test func verifyRejectsAFileEditedAfterItsSumLineWasWritten() throws {
        try withTemporaryDirectory { directory in
            let files = ["0001_create_a.sql": createA, "0002_create_b.sql": createB]
            let edited = files.merging(["0002_create_b.sql": createB + "-- edited\n"]) { $1 }
            let dir = try folder(edited, sum: sumFile(files), in: directory)
            expectFailure(try cli(["migrate", "verify", "--dir", dir.path], directory: directory), exit: 8, "0002")
        }
    }

    @Test func verifyIgnoresLineEndingsAndAByteOrderMark() throws {
        try withTemporaryDirectory { directory in
            let files = ["0001_create_a.sql": "-- a\nCREATE TABLE a (id INTEGER PRIMARY KEY);\n", "0002_create_b.sql": createB]
            let windows = [
                "0001_create_a.sql": "\u{FEFF}-- a\r\nCREATE TABLE a (id INTEGER PRIMARY KEY);\r\n", "0002_create_b.sql": createB,
            ]
            let dir = try folder(windows, sum: sumFile(files), in: directory)
            expectSuccess(try cli(["migrate", "verify", "--dir", dir.path], directory: directory))
        }
    }

    @Test func hashRewritesTheSumFile() throws {
        try withTemporaryDirectory { directory in
            let files = ["0001_create_a.sql": createA, "0002_create_b.sql": createB, "0003_create_c.sql": createC]
            let dir = try folder(files, sum: "0001 0000\n", in: directory)
            let result = try cli(["migrate", "hash", "--dir", dir.path], directory: directory)
            expectSuccess(result)
            let written = try String(contentsOf: dir.appendingPathComponent("migrations.sum"), encoding: .utf8)
            #expect(
                written.split(whereSeparator: \.isNewline).map(String.init)
                    == sumFile(files).split(whereSeparator: \.isNewline).map(String.init),
                "\(written)")
            expectSuccess(try cli(["migrate", "verify", "--dir", dir.path], directory: directory))
        }
    }
}
