import ObservableStoreCore
import StoreSQLite

extension SQLiteStore {
    /// Copies the write-ahead log (WAL) into the database file now, as far as `mode` says, and returns how
    /// many frames the WAL holds and how many of them are in the database file.
    ///
    /// The checkpoint runs on the writer connection with the writer's turn held: this process's writes wait
    /// for it, and it waits for the write in progress. ``CheckpointMode/passive`` never waits for other
    /// connections; it leaves in the WAL what a reader of an older snapshot may still need (``CheckpointResult/isComplete``
    /// is then false). The other modes wait, up to ``SQLiteStoreConfiguration/busyTimeout``, for other processes'
    /// writers and for readers of older snapshots (this store's own included: do not call it inside a `read`
    /// that has read something). When they cannot finish in that time they throw ``/ObservableStoreCore/StoreError/Code/busy``,
    /// naming the frames copied so far (those stay copied). Any mode, `passive` included, also throws
    /// ``/ObservableStoreCore/StoreError/Code/busy`` when another connection is checkpointing the same file at that moment.
    ///
    /// An in-memory store has no WAL: the result is zero frames. A closed store throws
    /// ``/ObservableStoreCore/StoreError/Code/transactionMisuse``, and so does a call inside a `write` closure.
    ///
    /// For example:
    ///
    /// ```swift
    /// let result = try store.checkpoint(.truncate)   // the -wal file is now empty
    /// print(result.walFrames, result.checkpointedFrames)
    /// ```
    ///
    /// The corresponding C function is `sqlite3_wal_checkpoint_v2`.
    /// Related SQLite documentation: <https://www.sqlite.org/wal.html#ckpt>
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive) throws -> CheckpointResult {
        let outcome = try writer.sync { writer in
            try StoreError.wrapping { try writer.connection.checkpoint(SQLiteStore.connectionMode(mode)) }
        }
        guard outcome.finished else {
            throw StoreError(
                .busy,
                "checkpoint (\(mode.rawValue)) could not finish within the busy timeout: \(outcome.checkpointedFrames) of "
                    + "\(outcome.walFrames) WAL frames are in the database file; another connection is writing or still "
                    + "reading an older snapshot")
        }
        return CheckpointResult(walFrames: outcome.walFrames, checkpointedFrames: outcome.checkpointedFrames)
    }

    /// The WAL's frames and how many are already in the database file, read from SQLite's shared-memory
    /// index (`-shm`) through the writer connection, in the writer's turn, without checkpointing (for
    /// `storectl info`). Nil for an in-memory store, or when no WAL index is there to read.
    package func walFrames() -> CheckpointResult? {
        guard path != ":memory:", let frames = try? writer.sync(countsAsWrite: false, { $0.connection.walIndexFrames() }) ?? nil else { return nil }
        return CheckpointResult(walFrames: frames.walFrames, checkpointedFrames: frames.checkpointedFrames)
    }

    private static func connectionMode(_ mode: CheckpointMode) -> Connection.CheckpointMode {
        switch mode {
        case .passive: .passive
        case .full: .full
        case .restart: .restart
        case .truncate: .truncate
        }
    }
}
