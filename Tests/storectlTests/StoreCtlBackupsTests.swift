import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// `storectl backups [list]` and `storectl backups prune --keep N`: the pre-migration backups by name.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlBackupsTests {
    /// Backups of store.sqlite (two sets), and files that only look like them.
    private let backups = [
        "store.sqlite.pre-0002.bak", "store.sqlite.pre-0004.bak", "store.sqlite.pre-0003.bak",
        "store.sqlite.pre-billing-0001.bak", "store.sqlite.pre-billing-0002.bak",
    ]
    private let lookalikes = [
        "store.sqlite2.pre-0001.bak", "other.sqlite.pre-0001.bak", "store.sqlite.pre-0001.bak.old", "store.sqlite.pre-1.bak",
    ]

    /// A store with the files of `backups` and `lookalikes` next to it; returns its path.
    private func storeWithBackups(in directory: URL) throws -> String {
        let path = try initStore(in: directory)
        for (index, name) in (backups + lookalikes).enumerated() {
            let file = directory.appendingPathComponent(name).path
            #expect(FileManager.default.createFile(atPath: file, contents: Data(repeating: 7, count: 10 + index)))
        }
        return path
    }

    private func names(in directory: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    @Test func listPrintsEveryBackupBySetAndVersion() throws {
        try withTemporaryDirectory { directory in
            let path = try storeWithBackups(in: directory)
            let result = try cli(["--db", path, "backups"])
            expectSuccess(result)
            let rows = try jsonLines(result)
            #expect(
                rows.map { "\($0["set"] as? String ?? "?")/\($0["version"] as? String ?? "?")" }
                    == ["store/0002", "store/0003", "store/0004", "billing/0001", "billing/0002"], "\(result)")
            #expect(rows.first?["path"] as? String == path + ".pre-0002.bak")
            #expect(rows.first?["size_bytes"] as? Int == 10)
            #expect((rows.first?["date"] as? String)?.hasSuffix("Z") == true, "\(result)")
            for line in result.lines { #expect(keysAppearInOrder(line, ["path", "set", "version", "size_bytes", "date"]), "\(line)") }
            let json = try cli(["--db", path, "backups", "list", "--format", "json"])
            expectSuccess(json)
            #expect(try jsonArray(json.stdout).count == 5)
            let table = try cli(["--db", path, "--format", "table", "backups"])
            expectSuccess(table)
            #expect(table.lines.first?.hasPrefix("PATH") == true && table.lines.count == 6, "\(table)")
        }
    }

    @Test func aRelativeDatabasePathListsRelativePaths() throws {
        try withTemporaryDirectory { directory in
            _ = try storeWithBackups(in: directory)
            let result = try cli(["--db", "store.sqlite", "backups", "--format", "json"], directory: directory)
            expectSuccess(result)
            #expect(try jsonArray(result.stdout).first?["path"] as? String == "store.sqlite.pre-0002.bak", "\(result)")
        }
    }

    @Test func pruneKeepsTheNewestOfEachSetAndNothingElse() throws {
        try withTemporaryDirectory { directory in
            let path = try storeWithBackups(in: directory)
            let before = try names(in: directory)
            let dryRun = try cli(["--db", path, "backups", "prune", "--keep", "1", "--dry-run"])
            expectSuccess(dryRun)
            #expect(try jsonLines(dryRun).compactMap { $0["version"] as? String } == ["0002", "0003", "0001"], "\(dryRun)")
            #expect(dryRun.stderr.contains("dry run: would remove 3 backups"), "\(dryRun)")
            #expect(try names(in: directory) == before, "a dry run removes nothing")

            let result = try cli(["--db", path, "backups", "prune", "--keep", "1"])
            expectSuccess(result)
            #expect(try jsonLines(result).compactMap { $0["path"] as? String }.map { ($0 as NSString).lastPathComponent } == [
                "store.sqlite.pre-0002.bak", "store.sqlite.pre-0003.bak", "store.sqlite.pre-billing-0001.bak",
            ], "\(result)")
            #expect(result.stderr.contains("removed 3 backups"), "\(result)")
            let left = try names(in: directory)
            #expect(left.isSuperset(of: lookalikes + ["store.sqlite", "store.sqlite.pre-0004.bak", "store.sqlite.pre-billing-0002.bak"]))
            #expect(left.isDisjoint(with: ["store.sqlite.pre-0002.bak", "store.sqlite.pre-0003.bak", "store.sqlite.pre-billing-0001.bak"]))
            #expect(try rowCount(path) == 0, "the store itself is untouched")

            let all = try cli(["--db", path, "backups", "prune", "--keep", "0", "-q"])
            expectSuccess(all)
            #expect(all.stderr.isEmpty, "\(all)")
            #expect(try jsonLines(all).count == 2, "\(all)")
            #expect(try names(in: directory).isSuperset(of: lookalikes))
        }
    }

    @Test(arguments: [
        (["--keep=-1"], "--keep"), (["--keep", "-1"], "--keep"), (["--keep", "three"], "three"), ([], "--keep"),
        (["--keep", "1", "--older-than", "3d"], "--older-than"),
    ])
    func badPruneArgumentsAreUsageErrorsThatRemoveNothing(arguments: [String], named: String) throws {
        try withTemporaryDirectory { directory in
            let path = try storeWithBackups(in: directory)
            let before = try names(in: directory)
            let result = try cli(["--db", path, "backups", "prune"] + arguments)
            expectFailure(result, exit: 2, code: "usage", named)
            #expect(result.stderrLines.count == 1 && result.stdout.isEmpty, "\(result)")
            #expect(try names(in: directory) == before)
        }
    }

    @Test func withoutAStoreFileItIsNotFound() throws {
        try withTemporaryDirectory { directory in
            for arguments in [["backups"], ["backups", "prune", "--keep", "0"]] {
                let result = try cli(["--db", storePath(in: directory, "missing.sqlite")] + arguments)
                expectFailure(result, exit: 3, code: "not_found", "missing.sqlite")
            }
            #expect(try names(in: directory).isEmpty, "nothing created")
        }
    }

    @Test func migrateUpKeepsTheNewestThreeBackupsOfTheSet() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            let latest = MigrationSet.store.latestVersion
            try StoreMigrator.migrate(path: path, upTo: latest - 1)
            for version in 1...3 {
                let file = path + ".pre-\(fourDigits(version)).bak"
                #expect(FileManager.default.createFile(atPath: file, contents: Data("older".utf8)))
            }
            expectSuccess(try cli(["--db", path, "migrate", "up"]))
            let listed = try cli(["--db", path, "backups"])
            expectSuccess(listed)
            #expect(try jsonLines(listed).compactMap { $0["version"] as? String } == [2, 3, latest].map(fourDigits), "\(listed)")
        }
    }
}
