import ObservableStoreCore
/// What a WAL checkpoint found and did (``SQLiteStore/checkpoint(_:)``).
///
/// For example:
///
/// ```swift
/// let result = try store.checkpoint(.passive)
/// if !result.isComplete { logger.info("\(result.walFrames - result.checkpointedFrames) frames wait for a reader") }
/// ```
public struct CheckpointResult: Sendable, Equatable {
    /// Frames in the WAL when the checkpoint ended. A ``CheckpointMode/truncate`` checkpoint empties the
    /// WAL, so this is 0 after it.
    public var walFrames: Int
    /// How many of those frames are now in the database file (copied by this checkpoint or an earlier one).
    public var checkpointedFrames: Int

    /// Whether every frame in the WAL is in the database file.
    public var isComplete: Bool { checkpointedFrames == walFrames }

    /// A result of `walFrames` frames, `checkpointedFrames` of them copied into the database file.
    public init(walFrames: Int, checkpointedFrames: Int) {
        self.walFrames = walFrames
        self.checkpointedFrames = checkpointedFrames
    }
}
