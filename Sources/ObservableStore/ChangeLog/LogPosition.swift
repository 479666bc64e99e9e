/// Where the change log stands, as seen in one snapshot.
struct LogPosition: Equatable, Sendable {
    /// The last sequence ever assigned (0 before the first commit).
    var last: Int64
    /// The oldest sequence still kept (0 when the log is empty).
    var oldest: Int64
    /// The bookkeeping counter of `_store_meta`.
    var bookkeeping: Int64
}
