import ArgumentParser
import ObservableStore

extension CheckpointMode: ExpressibleByArgument {}

/// `storectl checkpoint [--mode passive|full|restart|truncate]`: copies the WAL into the database file.
struct Checkpoint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the WAL into the database file and print the WAL's frames and how many are in the file.",
        discussion: """
            passive copies what no reader needs without waiting; full, restart and truncate wait up to
            --busy-timeout for other writers and readers (exit 5 if they cannot finish); truncate also
            empties the -wal file. Works on stores of any schema version.

            Example:
              storectl checkpoint --mode truncate
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "passive (default), full, restart or truncate.") var mode: CheckpointMode = .passive

    func run() throws {
        try global.refusePostgres("checkpoint is for SQLite's WAL; on PostgreSQL the server checkpoints (CHECKPOINT, checkpoint_timeout)")
        let store = try global.openStore(.any)
        defer { store.close() }
        let result = try store.checkpoint(mode)
        try global.output.object(
            ["mode", "wal_frames", "checkpointed_frames", "wal_bytes"],
            [
                .text(mode.rawValue), .integer(Int64(result.walFrames)), .integer(Int64(result.checkpointedFrames)),
                .integer(SQLiteStore.fileSize(global.path + "-wal")),
            ])
    }
}
