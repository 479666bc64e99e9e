import Foundation
internal import ObservableStoreCSQLite
import ObservableStoreCore

extension Connection {
    /// How far a checkpoint goes: the `SQLITE_CHECKPOINT_*` modes of `sqlite3_wal_checkpoint_v2`.
    package enum CheckpointMode: Sendable {
        /// `SQLITE_CHECKPOINT_PASSIVE`: copy what no reader still needs, without waiting.
        case passive
        /// `SQLITE_CHECKPOINT_FULL`: wait (busy handler) for writers and old readers, then copy everything.
        case full
        /// `SQLITE_CHECKPOINT_RESTART`: as `full`, then wait until the next writer can start the WAL over.
        case restart
        /// `SQLITE_CHECKPOINT_TRUNCATE`: as `restart`, then truncate the -wal file to zero bytes.
        case truncate
    }

    /// What `sqlite3_wal_checkpoint_v2` reported.
    package struct CheckpointOutcome: Sendable, Equatable {
        /// Frames in the WAL when the checkpoint ended (`*pnLog`; 0 when the database is not in WAL mode).
        package var walFrames: Int
        /// Frames of the WAL copied into the database file, by this checkpoint or earlier ones (`*pnCkpt`).
        package var checkpointedFrames: Int
        /// False when SQLite returned `SQLITE_BUSY`: the mode could not finish within the busy timeout.
        package var finished: Bool

        package init(walFrames: Int, checkpointedFrames: Int, finished: Bool) {
            self.walFrames = walFrames
            self.checkpointedFrames = checkpointedFrames
            self.finished = finished
        }
    }

    /// Checkpoints the main database's WAL in `mode`. A `full`, `restart` or `truncate` checkpoint that other
    /// connections keep from finishing within the busy timeout returns `finished == false` (it does not throw);
    /// every other failure throws.
    ///
    /// The corresponding C function is `sqlite3_wal_checkpoint_v2`.
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>
    package func checkpoint(_ mode: CheckpointMode) throws(SQLiteError) -> CheckpointOutcome {
        guard !isClosed else { throw SQLiteError(extendedCode: ResultCode.SQLITE_MISUSE, message: "the connection is closed") }
        let flag: Int32 =
            switch mode {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .full: SQLITE_CHECKPOINT_FULL
            case .restart: SQLITE_CHECKPOINT_RESTART
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        var log: Int32 = -1
        var checkpointed: Int32 = -1
        errno = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, flag, &log, &checkpointed)
        guard code == SQLITE_OK || code & 0xFF == SQLITE_BUSY else { throw lastError(code, sql: nil, threadErrno: errno) }
        if code == SQLITE_OK { walHook?.frames = 0 }  // a busy checkpoint copied nothing for sure: retry at the next write
        return CheckpointOutcome(
            walFrames: Int(max(log, 0)), checkpointedFrames: Int(max(checkpointed, 0)), finished: code == SQLITE_OK)
    }

    /// The WAL's frames and how many of them are already in the database file (`mxFrame` and `nBackfill` of
    /// the wal-index header), read without a checkpoint and without a lock. Nil when the database is not in
    /// WAL mode, or its wal-index is not set up yet. Use the connection as any other call (not from two
    /// threads at once).
    ///
    /// The header is read from the shared memory SQLite itself has mapped for this connection, through the
    /// VFS's `xShmMap` — never by opening the `-shm` file: closing a descriptor of a file drops every POSIX
    /// lock this process holds on it, SQLite's included (https://www.sqlite.org/howtocorrupt.html, 2.2). The
    /// header is kept twice; copies that differ caught a writer mid-update, and the read is retried, as
    /// SQLite does. Related SQLite documentation: <https://www.sqlite.org/walformat.html>
    package func walIndexFrames() -> (walFrames: Int, checkpointedFrames: Int)? {
        guard !isClosed else { return nil }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file,
            let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        // Region 0 of the wal-index, 32 KiB as SQLite maps it; not created when it does not exist (bExtend 0).
        guard map(file, 0, 32_768, 0, &region) == SQLITE_OK, let region else { return nil }
        let header = UnsafeRawPointer(region)
        for _ in 0..<100 {
            var bytes = [UInt8](repeating: 0, count: 100)
            bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: header, count: 100)) }
            guard bytes[0..<48] == bytes[48..<96] else {
                usleep(100)
                continue
            }
            guard bytes[12] == 1 else { return nil }  // isInit
            func word(_ offset: Int) -> UInt32 {
                bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }  // native byte order
            }
            return (Int(word(16)), Int(word(96)))
        }
        return nil
    }
}
