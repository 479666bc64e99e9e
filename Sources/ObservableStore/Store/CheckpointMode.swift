import ObservableStoreCore
/// How far ``SQLiteStore/checkpoint(_:)`` goes in copying the write-ahead log (WAL) into the database file.
///
/// The corresponding C constants are `SQLITE_CHECKPOINT_PASSIVE`, `_FULL`, `_RESTART` and `_TRUNCATE`.
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>
public enum CheckpointMode: String, Sendable, CaseIterable {
    /// Copy every frame no reader still needs, without waiting for anyone. Frames newer than the oldest
    /// open read snapshot stay in the WAL. SQLite's automatic checkpoint works this way.
    case passive
    /// Wait (up to the busy timeout) for other processes' writers and for readers of older snapshots,
    /// then copy every frame.
    case full
    /// As ``full``, then wait until no reader uses the WAL, so that the next write starts it over from the
    /// beginning instead of growing it.
    case restart
    /// As ``restart``, then truncate the `-wal` file to zero bytes: gives the WAL's disk space back.
    case truncate
}
