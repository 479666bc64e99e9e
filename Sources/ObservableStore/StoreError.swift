import StoreSQLite

/// The one error type the store throws: a code to match on, a message for people, and the SQLite context.
///
/// Bound values never appear in the message or the description.
///
/// For example:
///
/// ```swift
/// do {
///     try store.repository(NodeVO.self).insert(node)
/// } catch let error as StoreError where error.code == .constraint {
///     print("rejected:", error.message)
/// }
/// ```
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; match on the ones you handle.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, e.g. "constraint" (used by storectl's `error[...]`).
        public let rawValue: String
        /// Makes a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// An unexpected failure (I/O, a bug).
        public static let `internal` = Code(rawValue: "internal")
        /// The caller passed something unusable: bad SQL, a bad argument, an undecodable row.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// A record, table or file does not exist.
        public static let notFound = Code(rawValue: "not_found")
        /// A UNIQUE, NOT NULL, CHECK or foreign-key constraint failed (`SQLITE_CONSTRAINT`); nothing was written.
        public static let constraint = Code(rawValue: "constraint")
        /// The database lock was not acquired within the busy timeout (`SQLITE_BUSY`), or another
        /// process held the migration lock too long.
        public static let busy = Code(rawValue: "busy")
        /// The schema is older than the code and migrations were not applied.
        public static let migrationNeeded = Code(rawValue: "migration_needed")
        /// The database was migrated by newer code: opening it is refused and nothing is changed.
        public static let schemaTooNew = Code(rawValue: "schema_too_new")
        /// The migration history disagrees with the known files (checksum, missing file, order), or a migration failed.
        public static let migrationConflict = Code(rawValue: "migration_conflict")
        /// The file is not a database, or not one of this store's.
        public static let notAStore = Code(rawValue: "not_a_store")
        /// The file could not be opened (`SQLITE_CANTOPEN`).
        public static let cannotOpen = Code(rawValue: "cannot_open")
        /// The database file is damaged (`SQLITE_CORRUPT`).
        public static let corrupt = Code(rawValue: "corrupt")
        /// A write was attempted through a read-only connection or on a read-only file (`SQLITE_READONLY`).
        public static let readOnly = Code(rawValue: "read_only")
        /// The disk, a file-size limit or a quota is full: `SQLITE_FULL`, or an I/O error caused by ENOSPC, EFBIG or
        /// EDQUOT, whether it hit while rows were written or at COMMIT. Nothing of the failed write is kept.
        public static let diskFull = Code(rawValue: "disk_full")
        /// The linked SQLite library lacks a feature the store needs.
        public static let unsupportedSQLite = Code(rawValue: "unsupported_sqlite")
        /// A transaction was used wrongly: nested `write`, or used after it ended.
        public static let transactionMisuse = Code(rawValue: "transaction_misuse")
        /// Any other SQLite failure; see ``StoreError/sqliteCode``.
        public static let sqlite = Code(rawValue: "sqlite")

        /// Lets `catch StoreError.Code.constraint` match a thrown error by its code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StoreError)?.code == code
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A one-line explanation for people.
    public let message: String
    /// SQLite's extended result code, when SQLite reported the failure
    /// (see <https://www.sqlite.org/rescode.html>).
    public let sqliteCode: Int32?
    /// The SQL that failed, when there was one. Never includes bound values.
    public let sql: String?

    /// Makes an error.
    public init(_ code: Code, _ message: String, sqliteCode: Int32? = nil, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sqliteCode = sqliteCode
        self.sql = sql
    }

    /// The message, then the SQL that failed, if any.
    public var description: String {
        var text = message
        if let sqliteCode { text += " (SQLite error \(sqliteCode))" }
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}

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
    /// ``MigrationStatus/State/outOfOrder``): a ``StoreError/Code/migrationConflict`` naming the file and,
    /// for a changed one, both checksums and the `storectl migrate repair` command that accepts the edit.
    public static func migrationConflict(_ entry: MigrationStatus.Entry) -> StoreError {
        let file = entry.fileName
        if entry.state == .outOfOrder {
            return StoreError(.migrationConflict, "\(file) is pending but a later version is applied (out of order)")
        }
        return StoreError(
            .migrationConflict,
            "\(file) was changed after it was applied (history sha256 \(entry.recordedChecksum?.prefix(12) ?? "?")…, "
                + "file \(entry.fileChecksum?.prefix(12) ?? "?")…); after review run "
                + "`storectl migrate repair --accept \(Migration.format(entry.version))`")
    }

    /// A record of `table` with key `key` does not exist.
    public static func recordNotFound(table: String, key: String) -> StoreError {
        StoreError(.notFound, "record \(table)/\(key) not found")
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
