import ObservableStoreCore
import StoreSQLite

// The SQLite engine's side of StoreError: the migrator's errors, and the SQLite layer's, wrapped.
extension StoreError {
    /// The database was migrated by newer code (`db`) than this one knows (`known`).
    public static func schemaTooNew(db: Int, known: Int, set: String = MigrationSet.storeSetName) -> StoreError {
        let setText = set == MigrationSet.storeSetName ? "" : " (migration set '\(set)')"
        return StoreError(
            .schemaTooNew,
            "schema \(Migration.format(db)) is newer than this code (knows \(Migration.format(known)))\(setText); "
                + "upgrade the code")
    }

    /// The history conflicts with the known file of `entry` (state ``MigrationStatus/State/changed`` or
    /// ``MigrationStatus/State/outOfOrder``): a ``/ObservableStoreCore/StoreError/Code/migrationConflict`` naming the file and,
    /// for a changed one, both checksums and the `storectl migrate repair` command that accepts the edit.
    public static func migrationConflict(_ entry: MigrationStatus.Entry) -> StoreError {
        if entry.state == .outOfOrder { return migrationOutOfOrder(file: entry.fileName, laterApplied: nil) }
        return migrationChanged(
            file: entry.fileName, version: entry.version, recorded: entry.recordedChecksum ?? "?", current: entry.fileChecksum ?? "?")
    }

    /// `file` (version `version`) was changed after it was applied: the one message of the migrator, of
    /// ``migrationConflict(_:)`` and so of storectl.
    static func migrationChanged(file: String, version: Int, recorded: String, current: String) -> StoreError {
        StoreError(
            .migrationConflict,
            "\(file) was changed after it was applied (history sha256 \(recorded.prefix(12))…, file \(current.prefix(12))…); "
                + "restore the file, or after review run `storectl migrate repair --accept \(Migration.format(version))`")
    }

    /// `file` is pending although a later version (`laterApplied`, when known) is applied.
    static func migrationOutOfOrder(file: String, laterApplied: Int?) -> StoreError {
        let later = laterApplied.map(Migration.format) ?? "a later version"
        return StoreError(.migrationConflict, "\(file) is pending but \(later) is already applied (out of order)")
    }

    /// Wraps an error of the SQLite layer, keeping its code and SQL but not its arguments.
    init(_ error: SQLiteError) {
        let code = error.isOutOfSpace ? .diskFull : StoreError.code(forPrimaryCode: error.primaryCode)
        let message =
            error.isOutOfSpace && error.primaryCode == ResultCode.SQLITE_IOERR
            ? "\(error.message): the disk, a file size limit or a quota is full" : error.message
        self.init(code, message, sqliteCode: error.extendedCode, sql: error.sql)
    }

    /// The store's code for an SQLite primary result code.
    private static func code(forPrimaryCode primaryCode: Int32) -> Code {
        switch primaryCode {
        case ResultCode.SQLITE_CONSTRAINT: .constraint
        case ResultCode.SQLITE_BUSY, ResultCode.SQLITE_LOCKED: .busy
        case ResultCode.SQLITE_READONLY: .readOnly
        case ResultCode.SQLITE_CORRUPT: .corrupt
        case ResultCode.SQLITE_NOTADB: .notAStore
        case ResultCode.SQLITE_CANTOPEN: .cannotOpen
        case ResultCode.SQLITE_FULL: .diskFull
        case ResultCode.SQLITE_RANGE, ResultCode.SQLITE_MISUSE, ResultCode.SQLITE_TOOBIG, ResultCode.SQLITE_ERROR,
            ResultCode.SQLITE_MISMATCH:
            .invalidInput
        case ResultCode.SQLITE_IOERR: .internal
        default: .sqlite
        }
    }

    /// Runs `body`, turning any SQLite-layer error into a `StoreError`.
    static func wrapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError(error)
        }
    }
}
