import Foundation
internal import ObservableStoreCSQLite
import ObservableStoreCore

/// One SQLite database connection (`sqlite3*`).
///
/// A connection is not thread-safe. It is opened with `SQLITE_OPEN_NOMUTEX` ("multi-thread" mode,
/// <https://www.sqlite.org/threadsafe.html>): SQLite does no locking of its own on it, and the store
/// guarantees instead that exactly one thread uses a connection at a time (the writer's lock, or the
/// reader pool that hands a connection to one caller at a time). That saves a mutex per call.
package final class Connection {
    /// How a connection is opened.
    package enum Mode: Sendable {
        /// Reads and writes; creates the file only when `create` is true.
        case readWrite(create: Bool)
        /// Reads only (`SQLITE_OPEN_READONLY`); any write fails with `SQLITE_READONLY`.
        case readOnly
    }

    let handle: OpaquePointer
    /// The path the connection was opened with.
    package let path: String
    // Looked up several times per transaction; one thread uses a connection at a time (see above), so the
    // runtime's exclusivity check on each lookup is turned off.
    @exclusivity(unchecked) private var cache: StatementCache
    private(set) var isClosed = false
    /// The installed preupdate hook's closure, kept alive while SQLite points at it.
    var preupdateHook: PreupdateHookBox?
    var walHook: WALHookBox?
    /// The installed authorizer's state (``recordingReads(_:)``), kept alive while SQLite points at it.
    var authorizer: AuthorizerBox?

    /// Opens a connection; closes it again and throws if SQLite refuses.
    ///
    /// The corresponding C function is `sqlite3_open_v2`.
    package init(path: String, mode: Mode, busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWrite(let create): flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            let extended = db.map { sqlite3_extended_errcode($0) } ?? code
            sqlite3_close_v2(db)
            throw SQLiteError(extendedCode: extended, message: "\(message) (\(path))")
        }
        self.handle = db
        self.path = path
        self.cache = StatementCache()
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        observable_store_disable_double_quoted_strings(db)
    }

    deinit {
        close()
    }

    /// Finalizes every cached statement and closes the connection. Safe to call twice.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        cache.removeAll()
        sqlite3_preupdate_hook(handle, nil, nil)
        preupdateHook = nil
        sqlite3_wal_hook(handle, nil, nil)
        walHook = nil
        sqlite3_set_authorizer(handle, nil, nil)
        authorizer = nil
        sqlite3_close_v2(handle)
    }

    // MARK: - Statements

    /// Compiles one statement, not cached. Throws if `sql` holds no statement or more than one.
    package func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var statementHandle: OpaquePointer?
        var tailOffset = 0
        let code = sql.utf8CString.withUnsafeBufferPointer { buffer -> Int32 in
            guard buffer.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(handle, buffer.baseAddress, Int32(buffer.count), 0, &statementHandle, &tail)
            if let tail, let base = buffer.baseAddress { tailOffset = tail - base }
            return code
        }
        guard code == SQLITE_OK else { throw lastError(code, sql: sql) }
        guard let statementHandle else {
            throw SQLiteError(extendedCode: ResultCode.SQLITE_MISUSE, message: "no SQL statement to prepare", sql: sql)
        }
        let rest = sql.utf8.dropFirst(tailOffset)
        if !Connection.isBlankOrComment(Substring(rest)) {
            sqlite3_finalize(statementHandle)
            throw SQLiteError(
                extendedCode: ResultCode.SQLITE_MISUSE, message: "only one SQL statement is allowed here", sql: sql)
        }
        return Statement(handle: statementHandle, connection: handle, sql: sql)
    }

    /// A compiled statement from this connection's cache, reset. Its parameters may still hold the
    /// values of its last use: bind every one of them (``Statement/bind(_:)`` checks the count).
    ///
    /// The statement stays owned by the cache: use it, then let it go (it is reset before each reuse).
    /// While ``recordingReads(_:)`` runs, the statement is prepared again (so that the authorizer reports what
    /// it reads) and replaces the cached one.
    package func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if !isRecordingReads, let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// Like ``cachedStatement(_:)``, found by `name`: `sql` builds the text only when the statement is
    /// not cached yet (or while ``recordingReads(_:)`` runs).
    package func cachedStatement(_ name: StatementName, sql: () -> String) throws(SQLiteError) -> Statement {
        if !isRecordingReads, let statement = cache[name] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql())
        cache[name] = statement
        return statement
    }

    /// Runs each statement of `script` in order, calling `inspect` before each one runs.
    ///
    /// The script's statements need no arguments. On failure the error's `offset` is the byte
    /// offset in `script` of the failing statement (plus SQLite's own offset inside it, when known).
    /// `inspect` may throw to stop before a statement runs; `completed` runs after each statement finished.
    package func executeScript(
        _ script: String, inspect: (Statement) throws -> Void = { _ in }, completed: () -> Void = {}
    ) throws {
        let bytes = Array(script.utf8CString)
        try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor = base
            let end = base + buffer.count - 1  // the NUL terminator
            while cursor < end {
                cursor = Connection.skipBlankAndComments(from: cursor, to: end)
                guard cursor < end else { break }
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let start = cursor - base
                let code = sqlite3_prepare_v3(handle, cursor, Int32(end - cursor), 0, &statementHandle, &tail)
                if code != SQLITE_OK {
                    let inner = Int(sqlite3_error_offset(handle))
                    throw lastError(code, sql: script).with(sql: script, offset: start + max(inner, 0))
                }
                guard let tail else { break }
                cursor = tail
                guard let statementHandle else { continue }  // only whitespace or comments were left
                let statement = Statement(handle: statementHandle, connection: handle, sql: nil)
                try inspect(statement)
                do throws(SQLiteError) {
                    while try statement.step() {}
                } catch {
                    throw error.with(sql: script, offset: start)
                }
                completed()
            }
        }
    }

    /// Runs `sql` (one or more statements, no arguments).
    package func execute(_ sql: String) throws(SQLiteError) {
        do {
            try executeScript(sql)
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(extendedCode: ResultCode.SQLITE_ERROR, message: "\(error)", sql: sql)
        }
    }

    // MARK: - State

    /// The rowid of the most recent successful INSERT (`sqlite3_last_insert_rowid`).
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the most recent statement (`sqlite3_changes64`).
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Rows changed by every statement since the connection opened, rolled back or not (`sqlite3_total_changes64`).
    package var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Whether a transaction is open (`sqlite3_get_autocommit` returns 0).
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether the main database of this connection is read-only (`sqlite3_db_readonly`).
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    // MARK: - Library

    /// The SQLite library version, e.g. "3.40.1".
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// Whether the linked SQLite was compiled with `option` (`sqlite3_compileoption_used`).
    package static func compileOptionUsed(_ option: String) -> Bool {
        sqlite3_compileoption_used(option) == 1
    }

    // MARK: - Errors

    /// The error of a call that returned `code`; `threadErrno` is the thread's errno right after a call that
    /// may write (0 for others), as in ``SQLiteError/systemErrno(reported:threadErrno:extendedCode:)``.
    func lastError(_ code: Int32, sql: String?, threadErrno: Int32 = 0) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle) == 0 ? code : sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        let offset = Int(sqlite3_error_offset(handle))
        return SQLiteError(
            extendedCode: extended, message: message, sql: sql, offset: offset >= 0 ? offset : nil,
            systemErrno: SQLiteError.systemErrno(reported: sqlite3_system_errno(handle), threadErrno: threadErrno, extendedCode: extended))
    }

    /// The first byte at or after `cursor` that is not white space or inside an SQL comment.
    static func skipBlankAndComments(from cursor: UnsafePointer<CChar>, to end: UnsafePointer<CChar>) -> UnsafePointer<CChar> {
        var cursor = cursor
        while cursor < end {
            let byte = UInt8(bitPattern: cursor.pointee)
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                cursor += 1
            } else if byte == UInt8(ascii: "-"), cursor + 1 < end, cursor[1] == CChar(UInt8(ascii: "-")) {
                while cursor < end, cursor.pointee != CChar(UInt8(ascii: "\n")) { cursor += 1 }
            } else if byte == UInt8(ascii: "/"), cursor + 1 < end, cursor[1] == CChar(UInt8(ascii: "*")) {
                cursor += 2
                while cursor + 1 < end, !(cursor[0] == CChar(UInt8(ascii: "*")) && cursor[1] == CChar(UInt8(ascii: "/"))) {
                    cursor += 1
                }
                cursor = min(cursor + 2, end)
            } else {
                break
            }
        }
        return cursor
    }

    /// Whether `text` holds nothing but white space, `;` and SQL comments.
    static func isBlankOrComment(_ text: Substring) -> Bool {
        var rest = text[...]
        while let first = rest.first {
            if first.isWhitespace || first == ";" {
                rest = rest.dropFirst()
            } else if rest.hasPrefix("--") {
                guard let newline = rest.firstIndex(of: "\n") else { return true }
                rest = rest[newline...]
            } else if rest.hasPrefix("/*") {
                guard let close = rest.range(of: "*/") else { return true }
                rest = rest[close.upperBound...]
            } else {
                return false
            }
        }
        return true
    }
}
