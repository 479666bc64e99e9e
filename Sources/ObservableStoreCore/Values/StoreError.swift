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
        /// The database server cannot be reached, refused the login, or closed the connection (PostgreSQL engine). A
        /// write that fails with it did not commit: run it again (once a host of the URL takes sessions again).
        public static let unavailable = Code(rawValue: "unavailable")
        /// The connection was lost while COMMIT was on its way (PostgreSQL engine): the write may or may not have
        /// committed. Check before running it again (a write that is safe to repeat can simply be run again).
        public static let commitUnknown = Code(rawValue: "commit_unknown")
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

    /// Whether running the failed call again may succeed and can do no harm: ``Code/busy`` (a lock, a serialization
    /// failure, a deadlock) and ``Code/unavailable`` (no server, or the connection lost before COMMIT). Not
    /// ``Code/commitUnknown``: the write may have committed.
    public var isRetryable: Bool {
        code == .busy || code == .unavailable
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
    /// A record of `table` with key `key` does not exist.
    public static func recordNotFound(table: String, key: String) -> StoreError {
        StoreError(.notFound, "record \(table)/\(key) not found")
    }
}
