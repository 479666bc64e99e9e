import ArgumentParser
import Foundation
import ObservableStore

/// `storectl migrate …`: the migration commands of STORECTL.md C.5.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show, apply, rehearse, verify and repair migrations.",
        discussion: "Example:\n  storectl migrate status --exit-code || storectl migrate up",
        subcommands: [Status.self, Up.self, Plan.self, Verify.self, Repair.self, Hash.self])

    /// `migrate status [--exit-code]`.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every migration and whether it is applied.",
            discussion: "Exit 6 with --exit-code when something is pending; 8 on a history conflict.\n\nExample:\n  storectl migrate status")

        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Exit 6 when migrations are pending.") var exitCode = false

        func run() throws {
            let store = try global.openCommandStore(.any)
            defer { store.close() }
            let status = try store.migrationStatus()
            let rows = status.entries.map { entry -> [DatabaseValue] in
                [
                    .text(entry.set), .text(Migration.format(entry.version)), .text(entry.name), .text(entry.state.rawValue),
                    entry.appliedAt?.databaseValue ?? .null,
                    .text(entry.state == .applied ? "ok" : entry.state == .changed ? "changed" : entry.state == .unknown ? "no file" : ""),
                ]
            }
            try global.output.rows(["set", "version", "name", "state", "applied_at", "checksum"], rows)
            if let conflict = status.firstConflict { throw status.conflictError(for: conflict) }
            if !status.pending.isEmpty {
                global.say("\(status.pending.count) pending; run `storectl migrate up`")
                if exitCode { throw StoreError(.migrationNeeded, "\(status.pending.count) migrations pending") }
            }
        }
    }

    /// `migrate up`.
    struct Up: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the pending migrations (backing the store up first).",
            discussion: """
                On PostgreSQL there is no backup file (use pg_dump first); each file runs in one transaction, which waits
                at most --lock-timeout for each lock (the migration lock, a table the file alters).
                Example:
                  storectl migrate up
                  storectl migrate up --no-backup --lock-timeout 60s
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Skip the backup to <db>.pre-NNNN.bak.") var noBackup = false
        @Option(name: .long, help: "How long to wait for another process that is migrating.") var lockTimeout = "30s"

        func run() throws {
            let before = try global.openCommandStore(.any)
            let status = try before.migrationStatus()
            before.close()
            // The library's check: a newer schema or a conflict throws; only pending files are left to apply.
            try status.requireMigratable()
            let pending = status.pending
            guard !pending.isEmpty else { return global.say("nothing to do: the store is up to date") }
            if GlobalOptions.isPostgresURL(global.path) {
                let store = try global.openCommandStore(
                    .any, migrating: true, migrationLockTimeout: Duration.parse(lockTimeout) ?? .seconds(30))
                defer { store.close() }
                for entry in pending { global.say("applied \(Migration.format(entry.version)) \(entry.name)") }
                return global.say("store is at \(Migration.format(try store.schemaVersion()))")
            }
            var configuration = SQLiteStoreConfiguration()
            configuration.createIfMissing = false
            configuration.busyTimeout = global.busyTimeoutDuration
            configuration.backupBeforeMigrating = !noBackup
            configuration.migrationLockTimeout = Duration.parse(lockTimeout) ?? .seconds(30)
            configuration.applicationName = "storectl \(SQLiteStore.libraryVersion)"
            let store = try SQLiteStore(path: global.path, configuration: configuration)
            defer { store.close() }
            for entry in pending { global.say("applied \(Migration.format(entry.version)) \(entry.name)") }
            global.say("store is at \(Migration.format(try store.schemaVersion()))")
        }
    }

    /// `migrate plan`: `up` rehearsed without changing the store.
    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rehearse `migrate up`: real errors and timings, no change.",
            discussion: """
                On SQLite the rehearsal runs on a temporary copy of the file. On PostgreSQL it runs on the database itself,
                in one transaction that is rolled back: the files' locks are held until then, as `migrate up` holds them.
                Example:
                  storectl migrate plan
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try global.openCommandStore(.any)
            defer { store.close() }
            let rehearsed = try store.rehearsePendingMigrations()
            guard !rehearsed.isEmpty else { return global.say("nothing to do: the store is up to date") }
            let rows = rehearsed.map { record -> [DatabaseValue] in
                [.text(Migration.format(record.version)), .text(record.name), .text("ok"), .integer(Int64(record.durationMilliseconds))]
            }
            try global.output.rows(["version", "name", "result", "duration_ms"], rows)
        }
    }

    /// `migrate verify [--dir Migrations]`: the files alone.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check migration files: names, numbering, directives and migrations.sum (exit 8 on a problem).",
            discussion: "Example:\n  storectl migrate verify --dir Migrations")

        @Option(name: .long, help: "The folder of NNNN_name.sql files.") var dir = "Migrations"

        func run() throws {
            let set = try MigrationFiles.load(dir)
            let sumPath = (dir as NSString).appendingPathComponent("migrations.sum")
            guard let sum = FileManager.default.contents(atPath: sumPath) else {
                throw StoreError(.migrationConflict, "\(sumPath) is missing; create it with `storectl migrate hash --dir \(dir)`")
            }
            let recorded = String(decoding: sum, as: UTF8.self).split(separator: "\n").map(String.init)
            let expected = MigrationFiles.sumLines(set)
            for (index, line) in expected.enumerated() {
                guard index < recorded.count else {
                    throw StoreError(.migrationConflict, "migrations.sum has no line for \(set.migrations[index].id).sql; run `storectl migrate hash`")
                }
                guard recorded[index] == line else {
                    throw StoreError(
                        .migrationConflict,
                        "\(set.migrations[index].id).sql does not match migrations.sum (recorded \(recorded[index]), file \(line)): "
                            + "a shipped migration must not change")
                }
            }
            if recorded.count > expected.count {
                throw StoreError(.migrationConflict, "migrations.sum lists \(recorded.count) files but \(dir) has \(expected.count)")
            }
            print("\(set.migrations.count) migrations ok")
        }
    }

    /// `migrate hash [--dir Migrations]`: rewrites migrations.sum.
    struct Hash: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write migrations.sum: one 'NNNN sha256' line per file.",
            discussion: "Example:\n  storectl migrate hash --dir Migrations")

        @Option(name: .long, help: "The folder of NNNN_name.sql files.") var dir = "Migrations"

        func run() throws {
            let set = try MigrationFiles.load(dir)
            let text = MigrationFiles.sumLines(set).joined(separator: "\n") + "\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("migrations.sum")))
            print(text, terminator: "")
        }
    }

    /// `migrate repair --accept V`.
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-record the checksum of an applied migration whose file was edited, after review.",
            discussion: "The only way to edit the history; it never marks an unapplied file as applied.\n\nExample:\n  storectl migrate repair --accept 0004")

        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "The version to accept, e.g. 0004.") var accept: String
        @Option(name: .long, help: "The migration set.") var set = MigrationSet.storeSetName

        func run() throws {
            guard let version = Int(accept), version > 0 else { throw CLIError.usage("--accept takes a version such as 0004") }
            let store = try global.openCommandStore(.any)
            defer { store.close() }
            let (old, new) = try store.acceptMigrationChange(version: version, set: set)
            print("\(Migration.format(version)): \(old) -> \(new)")
        }
    }
}

/// Migration files read from a folder, for `verify` and `hash`.
enum MigrationFiles {
    static func load(_ directory: String) throws -> MigrationSet {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreError(.notFound, "no migrations folder at \(directory)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sql") && $0 != "schema.sql" }
        let migrations = try names.map { name -> Migration in
            let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name)) ?? Data()
            do {
                return try Migration(fileName: name, sql: String(decoding: data, as: UTF8.self))
            } catch let error as StoreError {
                throw StoreError(.migrationConflict, error.message)
            }
        }
        for migration in migrations where !migration.runsInTransaction {
            for line in migration.sql.split(separator: "\n").dropFirst() {
                let statement = line.trimmingCharacters(in: .whitespaces).uppercased()
                guard statement.isEmpty || statement.hasPrefix("--") || statement.hasPrefix("PRAGMA") || statement.hasPrefix("VACUUM") else {
                    throw StoreError(
                        .migrationConflict, "\(migration.id).sql: a no-transaction migration may only hold PRAGMA and VACUUM")
                }
            }
        }
        return try MigrationSet(name: MigrationSet.storeSetName, migrations: migrations)
    }

    static func sumLines(_ set: MigrationSet) -> [String] {
        set.migrations.map { "\(Migration.format($0.version)) \($0.checksum)" }
    }
}
