#if PostgreSQL
import ObservableStoreCore

/// Log entries already read (by an awaited read), handed to the ``CommitPublisher`` as its log: publication then
/// waits for no server. It serves the entries after whatever sequence the publisher asks from; past the last one it
/// has, it has nothing (the publisher stops there, and the next read goes on from there).
struct PrefetchedLog: ChangeLogReading {
    /// Consecutive commits, oldest first.
    let entries: [PostgresLogEntry]
    /// The last sequence the log had assigned when they were read.
    let last: Int64

    /// The entries after `sequence` (through `last`), at most `limit`.
    func entries(after sequence: Int64, through last: Int64?, limit: Int) throws -> [PostgresLogEntry] {
        Array(entries.lazy.filter { $0.sequence > sequence && $0.sequence <= (last ?? .max) }.prefix(limit))
    }

    /// The last sequence assigned when the entries were read.
    func lastSequence() throws -> Int64 { last }

    /// Commits are never logged in pieces here.
    func piece(_ index: Int, of sequence: Int64) throws -> PostgresLogEntry? { nil }
}
#endif
