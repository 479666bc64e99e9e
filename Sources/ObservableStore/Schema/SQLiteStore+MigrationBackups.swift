import Foundation
import ObservableStoreCore

extension SQLiteStore {
    /// The pre-migration backups of the database at `databasePath` (see ``MigrationBackup``), by set (the
    /// library's first) and version, oldest first. The store need not be open, nor even exist.
    ///
    /// For example:
    ///
    /// ```swift
    /// let backups = try SQLiteStore.migrationBackups(of: "app.sqlite")
    /// ```
    public static func migrationBackups(of databasePath: String) throws -> [MigrationBackup] {
        try MigrationBackup.all(of: databasePath)
    }

    /// Removes all but the `count` newest pre-migration backups of each migration set of the database at
    /// `databasePath`, newest by the version in the name (not the file's date), and returns the removed ones.
    /// `count` 0 removes them all. Each backup's `-wal`, `-shm` and `-journal` files go with it; no other
    /// file is touched.
    ///
    /// Takes the migration lock (`<db>-migrate.lock`) first, so it never removes the backup of a run in
    /// progress; waits for it up to `lockTimeout`, then throws ``/ObservableStoreCore/StoreError/Code/busy``. A negative
    /// `count` throws ``/ObservableStoreCore/StoreError/Code/invalidInput`` and removes nothing.
    ///
    /// For example:
    ///
    /// ```swift
    /// let removed = try SQLiteStore.pruneMigrationBackups(of: "app.sqlite", keeping: 1)
    /// ```
    @discardableResult
    public static func pruneMigrationBackups(
        of databasePath: String, keeping count: Int, lockTimeout: Duration = .seconds(30)
    ) throws -> [MigrationBackup] {
        try MigrationBackup.checkKeepCount(count)
        let lock = try MigrationLock(databasePath: databasePath, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        return try MigrationBackup.prune(of: databasePath, keeping: count)
    }
}
