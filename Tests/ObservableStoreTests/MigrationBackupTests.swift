import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Pre-migration backups: kept per `keptMigrationBackups`, listed and pruned by name, never another file.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct MigrationBackupTests {
    /// A service set with `count` migrations, each adding a table.
    private func things(_ count: Int) throws -> MigrationSet {
        try MigrationSet(
            name: "things",
            migrations: (1...count).map { Migration(version: $0, name: "step_\($0)", sql: "CREATE TABLE t\($0) (x);") })
    }

    private func configuration(_ count: Int, kept: Int? = 3) throws -> SQLiteStoreConfiguration {
        var configuration = SQLiteStoreConfiguration()
        configuration.migrationSets = [try things(count)]
        configuration.keptMigrationBackups = kept
        return configuration
    }

    /// Opens `path` with set versions `first` … `last`, one run each. From a fresh file (`first` 1, no backup
    /// for it) that leaves backups before 2 … `last`.
    private func migrate(_ path: String, from first: Int = 1, through last: Int, kept: Int? = 3) throws {
        for count in first...last { try SQLiteStore(path: path, configuration: try configuration(count, kept: kept)).close() }
    }

    private func names(in directory: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    private func create(_ name: String, in directory: URL, date: Date? = nil) throws {
        let path = directory.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a backup of store.sqlite".utf8)))
        if let date { try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path) }
    }

    /// Files that look like backups of store.sqlite but are not.
    private let lookalikes = [
        "store.sqlite2.pre-things-0001.bak", "other.sqlite.pre-0001.bak", "store.sqlite.pre-things-0001.bak.old",
        "store.sqlite.pre-things-0001.bak-notes", "store.sqlite.pre-things-1.bak", "store.sqlite.pre-things-00001.bak",
        "store.sqlite.pre-.bak", "store.sqlite.pre-0001.bak.pre-0002.bak", "xstore.sqlite.pre-0001.bak",
        "store.sqlite.pre-store-0001.bak", "store.sqlite.pre-0000.bak",
    ]

    @Test func aMigrationRunKeepsTheNewestThreeOfEachSetByVersion() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            for name in lookalikes { try create(name, in: directory) }
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("store.sqlite.pre-things-0001.bak"), withIntermediateDirectories: false)
            // A backup of the library's set, and an old one of this set written last: the version decides, not the date.
            try create("store.sqlite.pre-0002.bak", in: directory)
            try migrate(path, through: 3)
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: path + ".pre-things-0002.bak")
            try migrate(path, from: 4, through: 6)
            let backups = try SQLiteStore.migrationBackups(of: path)
            #expect(backups.map { "\($0.set)/\($0.version)" } == ["store/2", "things/4", "things/5", "things/6"])
            let left = try names(in: directory)
            for name in lookalikes + ["store.sqlite.pre-things-0001.bak"] { #expect(left.contains(name), "\(name) was removed") }
            #expect(!left.contains("store.sqlite.pre-things-0002.bak") && !left.contains("store.sqlite.pre-things-0003.bak"))
        }
    }

    @Test func zeroKeepsNoBackupOfASuccessfulRunAndNilKeepsThemAll() throws {
        try withTemporaryDirectory { directory in
            let kept = directory.appendingPathComponent("kept.sqlite").path
            try migrate(kept, through: 6, kept: nil)
            #expect(try SQLiteStore.migrationBackups(of: kept).map(\.version) == [2, 3, 4, 5, 6])
            let none = directory.appendingPathComponent("none.sqlite").path
            try migrate(none, through: 4, kept: 0)
            #expect(try SQLiteStore.migrationBackups(of: none).isEmpty)
            #expect(try SQLiteStore.migrationBackups(of: kept).count == 5, "another store's backups are not touched")
            // A failed run keeps its backup, whatever the setting.
            var failing = try configuration(4, kept: 0)
            failing.migrationSets = [
                try MigrationSet(
                    name: "things",
                    migrations: try things(4).migrations + [Migration(version: 5, name: "broken", sql: "CREATE TABLE t1 (x);")]),
            ]
            #expect(throws: StoreError.self) { try SQLiteStore(path: none, configuration: failing) }
            #expect(try SQLiteStore.migrationBackups(of: none).map(\.version) == [5])
        }
    }

    @Test func theDefaultKeepsThree() {
        #expect(SQLiteStoreConfiguration().keptMigrationBackups == 3)
    }

    @Test func aNegativeCountIsRefusedAndRemovesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            try migrate(path, through: 3, kept: nil)
            let before = try names(in: directory)
            let opening = #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: try configuration(5, kept: -1)) }
            #expect(opening?.code == .invalidInput)
            #expect(opening?.message.contains("must be 0 or more, not -1") == true)
            let pruning = #expect(throws: StoreError.self) { try SQLiteStore.pruneMigrationBackups(of: path, keeping: -2) }
            #expect(pruning?.code == .invalidInput)
            #expect(try names(in: directory) == before)
            let store = try SQLiteStore(path: path, configuration: try configuration(3))
            defer { store.close() }
            #expect(try store.appliedMigrations().filter { $0.set == "things" }.count == 3, "nothing was migrated")
        }
    }

    @Test func listingGivesPathSetVersionSizeAndDate() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            let started = Date().addingTimeInterval(-2)
            try migrate(path, through: 3, kept: nil)
            let backups = try SQLiteStore.migrationBackups(of: path)
            #expect(backups.map(\.path) == [path + ".pre-things-0002.bak", path + ".pre-things-0003.bak"])
            for backup in backups {
                #expect(backup.set == "things")
                let attributes = try FileManager.default.attributesOfItem(atPath: backup.path)
                #expect(backup.size == (attributes[.size] as? NSNumber)?.int64Value && backup.size > 0)
                #expect(backup.date >= started && backup.date <= Date().addingTimeInterval(2))
            }
        }
    }

    @Test func pruningRemovesABackupWithItsSidecarsAndWaitsForAMigration() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            try migrate(path, through: 4, kept: nil)
            try create("store.sqlite.pre-things-0002.bak-wal", in: directory)
            do {
                let lock = try MigrationLock(databasePath: path, timeout: .seconds(1))
                let busy = #expect(throws: StoreError.self) {
                    try SQLiteStore.pruneMigrationBackups(of: path, keeping: 1, lockTimeout: .milliseconds(100))
                }
                #expect(busy?.code == .busy)
                #expect(try SQLiteStore.migrationBackups(of: path).count == 3, "nothing removed while a migration runs")
                withExtendedLifetime(lock) {}
            }
            let removed = try SQLiteStore.pruneMigrationBackups(of: path, keeping: 1)
            #expect(removed.map(\.version) == [2, 3])
            #expect(try SQLiteStore.migrationBackups(of: path).map(\.version) == [4])
            #expect(!FileManager.default.fileExists(atPath: path + ".pre-things-0002.bak-wal"))
            #expect(try SQLiteStore.pruneMigrationBackups(of: path, keeping: 0).map(\.version) == [4])
            #expect(try SQLiteStore.pruneMigrationBackups(of: path, keeping: 0).isEmpty, "nothing left: nothing to do")
        }
    }

    @Test func namesAreParsedExactly() {
        let parse = { MigrationBackup.parse($0, databaseFileName: "store.sqlite").map { "\($0.set)/\($0.version)" } }
        #expect(parse("store.sqlite.pre-0004.bak") == "store/4")
        #expect(parse("store.sqlite.pre-billing-0012.bak") == "billing/12")
        #expect(parse("store.sqlite.pre-billing-v2-0003.bak") == "billing-v2/3")
        #expect(parse("store.sqlite.pre-12345.bak") == "store/12345")
        // A backup of another store whose name extends this one's (`store.sqlite.pre-x`) is not this store's.
        #expect(parse("store.sqlite.pre-x.pre-0004.bak") == nil)
        #expect(parse("store.sqlite.pre-x.bak-0004.bak") == nil)
        for name in lookalikes { #expect(parse(name) == nil, "\(name)") }
        #expect(MigrationBackup.path(for: "/x/store.sqlite", set: "billing", version: 7) == "/x/store.sqlite.pre-billing-0007.bak")
        #expect(MigrationBackup.path(for: "/x/store.sqlite", set: MigrationSet.storeSetName, version: 7) == "/x/store.sqlite.pre-0007.bak")
    }
}
