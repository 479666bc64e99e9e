internal import ObservableStoreCSQLite

extension Connection {
    /// The largest string or blob this connection accepts, in bytes: its `SQLITE_LIMIT_LENGTH`
    /// (1,000,000,000 by default). A longer value fails with `SQLITE_TOOBIG`.
    ///
    /// Setting it lowers (or raises, up to the compile-time `SQLITE_MAX_LENGTH`) the limit for this connection
    /// only. The corresponding C function is `sqlite3_limit`; see <https://www.sqlite.org/limits.html>.
    package var lengthLimit: Int {
        get { Int(sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, -1)) }
        set { _ = sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: newValue)) }
    }
}
