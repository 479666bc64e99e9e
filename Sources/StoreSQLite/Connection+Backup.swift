import Foundation
internal import ObservableStoreCSQLite
import ObservableStoreCore

extension Connection {
    /// Copies this connection's main database into `destination`'s, page by page, while other
    /// connections may keep writing (SQLite's online backup API).
    ///
    /// The corresponding C functions are `sqlite3_backup_init`, `_step` and `_finish`.
    /// A step that finds the source locked is retried every 5 ms, at most `maxBusyRetries` times.
    /// Related SQLite documentation: <https://www.sqlite.org/backup.html>
    package func backup(to destination: Connection, pagesPerStep: Int32 = 256, maxBusyRetries: Int = 1000) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.lastError(sqlite3_errcode(destination.handle), sql: nil)
        }
        var code: Int32
        var busyRetries = 0
        var stepErrno: Int32 = 0
        repeat {
            errno = 0
            code = sqlite3_backup_step(backup, pagesPerStep)
            stepErrno = errno  // behind a failed write to `destination` (see SQLiteError.systemErrno)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                busyRetries += 1
                sqlite3_sleep(5)
            }
        } while code == SQLITE_OK || ((code == SQLITE_BUSY || code == SQLITE_LOCKED) && busyRetries < maxBusyRetries)
        errno = 0
        let finish = sqlite3_backup_finish(backup)
        let finishErrno = errno
        guard code == SQLITE_DONE, finish == SQLITE_OK else {
            throw destination.lastError(
                code == SQLITE_DONE ? finish : code, sql: nil, threadErrno: code == SQLITE_DONE ? finishErrno : stepErrno)
        }
    }
}
