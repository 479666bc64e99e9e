import ArgumentParser
import Foundation
import ObservableStore

/// `storectl backups [list]` and `storectl backups prune --keep N`: the pre-migration backups of the store.
struct Backups: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List or prune the backups taken before migrations (<db>.pre-NNNN.bak, <db>.pre-SET-NNNN.bak).",
        discussion: """
            Only files next to the store named for this store file count. The store itself is not opened,
            so this works on a store of any schema, and on a damaged one.

            Example:
              storectl backups --db app.sqlite
              storectl backups prune --keep 1
            """,
        subcommands: [Show.self, Prune.self],
        defaultSubcommand: Show.self)

    static let columns = ["path", "set", "version", "size_bytes", "date"]

    static func row(_ backup: MigrationBackup) -> [DatabaseValue] {
        [.text(backup.path), .text(backup.set), .text(Migration.format(backup.version)), .integer(backup.size), backup.date.databaseValue]
    }

    /// Exit 3 when there is no store file at the path (a typo would otherwise list nothing).
    static func checkStoreExists(_ global: GlobalOptions) throws {
        try global.refusePostgres("backups lists SQLite's pre-migration backup files; back a PostgreSQL database up with pg_dump or pg_basebackup")
        guard FileManager.default.fileExists(atPath: global.path) else {
            throw StoreError(.notFound, "no store at \(global.path)")
        }
    }

    /// `backups list` (the default): every backup, by set and version, oldest first.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the pre-migration backups: path, set, version, size and date, oldest first per set.",
            discussion: "Example:\n  storectl backups list --format json")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try Backups.checkStoreExists(global)
            try global.output.rows(Backups.columns, try SQLiteStore.migrationBackups(of: global.path).map(Backups.row))
        }
    }

    /// `backups prune --keep N [--dry-run]`.
    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove all but the newest N backups of each migration set (newest by version); prints the removed ones.",
            discussion: """
                Waits up to --busy-timeout for a migration in progress (exit 5). --keep 0 removes them all.

                Example:
                  storectl backups prune --keep 3 --dry-run
                """)

        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "How many backups of each migration set to keep (0 or more).") var keep: Int
        @Flag(name: .long, help: "Print what would be removed; remove nothing.") var dryRun = false

        func validate() throws {
            guard keep >= 0 else { throw ValidationError("--keep: \(keep) is negative; give 0 or more backups to keep") }
        }

        func run() throws {
            try Backups.checkStoreExists(global)
            let removed: [MigrationBackup]
            if dryRun {
                removed = MigrationBackup.beyond(keep, of: try SQLiteStore.migrationBackups(of: global.path))
            } else {
                removed = try SQLiteStore.pruneMigrationBackups(of: global.path, keeping: keep, lockTimeout: global.busyTimeoutDuration)
            }
            try global.output.rows(Backups.columns, removed.map(Backups.row))
            let count = "\(removed.count) backup\(removed.count == 1 ? "" : "s")"
            global.say(dryRun ? "dry run: would remove \(count); nothing was removed" : "removed \(count)")
        }
    }
}
