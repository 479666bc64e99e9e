import ObservableStoreCore
import StoreSQLite

// The SQLite engine's side of the core's engine protocol: snapshots on reader connections, the change log
// (`_store_commits`, `_store_commit_pieces`), and durable cursors (`_store_listeners`).
extension SQLiteStore: RecordEngine {
    /// A snapshot is a read transaction.
    package typealias Snapshot = SQLiteTransaction

    /// Whether the store logs its commits (durable listeners need it).
    package var tracksChanges: Bool { configuration.tracksChanges }

    package func readSnapshot<T>(_ body: (SQLiteTransaction) throws -> T) throws -> (value: T, position: SnapshotPosition) {
        try read { tx in (try body(tx), SnapshotPosition(sequence: try ChangeLog.lastSequence(tx))) }
    }

    package func readLog(after sequence: Int64, limit: Int) throws -> (entries: [LoggedCommit], last: Int64) {
        try read { tx in
            (try ChangeLog.read(after: sequence, limit: limit, on: tx.connection), try ChangeLog.position(on: tx.connection).last)
        }
    }

    package func readPiece(_ index: Int, of sequence: Int64) throws -> LoggedCommit? {
        try read { tx in try ChangeLog.readPiece(index, of: sequence, on: tx.connection) }
    }

    package func advanceCursor(of name: String, to sequence: Int64) throws {
        try write { tx in try DurableCursor.advance(name, to: sequence, in: tx) }
    }

    package func advanceCursor(of name: String, past piece: Commit.Piece, of sequence: Int64) throws {
        try write { tx in try DurableCursor.advance(name, past: piece, of: sequence, in: tx) }
    }

    package func cursor(of name: String, isAtLeast sequence: Int64) throws -> Bool {
        try cursor(of: name, isPast: .whole, of: sequence)
    }

    package func cursor(of name: String, isPast piece: Commit.Piece, of sequence: Int64) throws -> Bool {
        try read { tx in try DurableCursor.isPast(name, piece: piece, of: sequence, in: tx) }
    }

    package func acknowledgedPieces(of name: String) throws -> Int {
        try read { tx in
            try tx.fetchValue("SELECT cursor_piece FROM \(DurableCursor.table) WHERE name = ?", [name]).flatMap(Int64.fromDatabaseValue)
                .map(Int.init) ?? 0
        }
    }
}
