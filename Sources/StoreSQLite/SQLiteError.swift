#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import ObservableStoreCore
#endif

/// An error returned by the SQLite C API: its extended result code, its message, and the SQL that failed.
///
/// Bound values never appear here: messages may end up in logs.
///
/// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    package let extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`).
    package let message: String
    /// The SQL being prepared or run, when there was one.
    package let sql: String?
    /// The byte offset in `sql` that SQLite blames (`sqlite3_error_offset`), when it knows one.
    package let offset: Int?
    /// The operating system's error number behind an I/O error, 0 when none: see
    /// ``systemErrno(reported:threadErrno:extendedCode:)``.
    package let systemErrno: Int32

    package init(extendedCode: Int32, message: String, sql: String? = nil, offset: Int? = nil, systemErrno: Int32 = 0) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.offset = offset
        self.systemErrno = systemErrno
    }

    /// The operating system's error number behind a failure with `extendedCode`: SQLite's own record of it
    /// (`reported`, from `sqlite3_system_errno`), else for an I/O error the thread's `errno` read right after the
    /// failing call (`threadErrno`; the caller clears it before the call). SQLite does not record it everywhere:
    /// a write that fails inside COMMIT leaves `sqlite3_system_errno` at 0 while `errno` holds EFBIG or ENOSPC.
    package static func systemErrno(reported: Int32, threadErrno: Int32, extendedCode: Int32) -> Int32 {
        guard reported == 0, extendedCode & 0xFF == ResultCode.SQLITE_IOERR else { return reported }
        return threadErrno
    }

    /// True for an I/O error caused by a full disk, a file-size limit (`ulimit -f`) or a full quota.
    package var isOutOfSpace: Bool {
        primaryCode == ResultCode.SQLITE_FULL
            || (primaryCode == ResultCode.SQLITE_IOERR && [ENOSPC, EFBIG, EDQUOT].contains(systemErrno))
    }

    /// The primary result code, e.g. 19 (`SQLITE_CONSTRAINT`).
    package var primaryCode: Int32 { extendedCode & 0xFF }

    package var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    /// This error with another SQL text attached.
    package func with(sql: String?, offset: Int? = nil) -> SQLiteError {
        SQLiteError(
            extendedCode: extendedCode, message: message, sql: sql, offset: offset ?? self.offset, systemErrno: systemErrno)
    }
}

/// SQLite result codes the store reacts to, named as in `sqlite3.h` so they can be searched.
package enum ResultCode {
    package static let SQLITE_OK: Int32 = 0
    package static let SQLITE_ERROR: Int32 = 1
    package static let SQLITE_INTERNAL: Int32 = 2
    package static let SQLITE_PERM: Int32 = 3
    package static let SQLITE_ABORT: Int32 = 4
    package static let SQLITE_BUSY: Int32 = 5
    package static let SQLITE_LOCKED: Int32 = 6
    package static let SQLITE_NOMEM: Int32 = 7
    package static let SQLITE_READONLY: Int32 = 8
    package static let SQLITE_INTERRUPT: Int32 = 9
    package static let SQLITE_IOERR: Int32 = 10
    package static let SQLITE_CORRUPT: Int32 = 11
    package static let SQLITE_NOTFOUND: Int32 = 12
    package static let SQLITE_FULL: Int32 = 13
    package static let SQLITE_CANTOPEN: Int32 = 14
    package static let SQLITE_SCHEMA: Int32 = 17
    package static let SQLITE_TOOBIG: Int32 = 18
    package static let SQLITE_CONSTRAINT: Int32 = 19
    package static let SQLITE_MISMATCH: Int32 = 20
    package static let SQLITE_MISUSE: Int32 = 21
    package static let SQLITE_RANGE: Int32 = 25
    package static let SQLITE_NOTADB: Int32 = 26
    package static let SQLITE_ROW: Int32 = 100
    package static let SQLITE_DONE: Int32 = 101
}
