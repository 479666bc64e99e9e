import Dispatch
import Foundation
import ObservableStoreCore
import StoreSQLite
import Synchronization

/// What only a write touches (with the writer's lock held): the writer connection, the change capture its
/// preupdate hook fills, and the change log writer.
final class Writer {
    let connection: Connection
    let capture = ChangeCapture()
    let changeLog: ChangeLog
    /// The dates the writes' records carried last, formatted.
    let timestamps = TimestampCache()
    /// The insert and update statements the writes used recently.
    let recordStatements = RecordStatements()
    /// Notices writes of programs that do not log, at the start of each write.
    let foreignWrites = ForeignWriteDetector()
    /// Says when the change log is due for pruning.
    let pruning = PruningSchedule()
    /// What follows each write transaction, told before COMMIT, after it, or after a rollback, in this order.
    let observers: [any WriteObserver]

    init(connection: Connection, changeLogLayout: ChangeLogLayout, pieceByteLimit: Int = ChangeCapture.defaultPieceByteLimit) {
        self.connection = connection
        self.changeLog = ChangeLog(layout: changeLogLayout, pieceByteLimit: pieceByteLimit)
        self.observers = [changeLog, foreignWrites, pruning]
    }

    /// Sizes the capture's pieces for the connection's length limit now; called at the start of each write.
    func sizeCapturePieces() {
        capture.pieceByteLimit = changeLog.pieceByteLimit(lengthLimit: connection.lengthLimit)
    }

    /// Whether the library's change-log tables exist in their current layout (a store migrated only part of
    /// the way may have none, or an older one).
    func hasChangeLog() throws -> Bool {
        try StoreError.wrapping {
            let statement = try connection.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_store_meta'")
            return try statement.step() && statement.int64(at: 0) == 1
        } && ChangeLog.hasPieces(on: connection)
    }

    /// WAL size (frames) past which a write is followed by a checkpoint: SQLite's automatic threshold.
    static let checkpointThreshold = 1000

    /// Checkpoints when the WAL has grown past ``checkpointThreshold``. Called after each write, once its
    /// events are handed over: SQLite would otherwise checkpoint inside the COMMIT (the connection defers
    /// checkpoints, see `Connection.deferCheckpoints()`), delaying that commit's listeners by the checkpoint's
    /// fsyncs. A failure is left for the next write to retry, as SQLite does with its own.
    func checkpointIfDue() {
        guard connection.framesInWAL >= Writer.checkpointThreshold else { return }
        try? connection.checkpoint()
    }

    /// Starts capturing row changes into ``capture``.
    func installCapture() {
        let capture = self.capture
        connection.setPreupdateHook { change in capture.record(change) }
    }
}
