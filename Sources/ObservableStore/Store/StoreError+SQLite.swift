import ObservableStoreCore
import StoreSQLite

// The SQLite engine's side of StoreError: the SQLite layer's errors, wrapped.
extension StoreError {
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
