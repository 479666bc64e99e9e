/// What a storage engine provides to the core, for the parts of observation that read the store:
/// bind-and-fire (a value, then its changes) and durable listeners (a cursor in the store).
///
/// An engine (the SQLite one is `SQLiteStore`, in the `ObservableStore` module) keeps a change log: every commit
/// gets the next sequence number, gap-free, in commit order, and its changes are read back as
/// ``ChangeLogEntry`` values. It also drives delivery, the other half of the contract:
///
/// - it creates one ``ListenerRegistry`` (with a ``DeliveryContext`` that knows when its threads must not
///   wait for handlers) and one ``CommitPublisher`` per store;
/// - after each of its own commits it calls ``CommitPublisher/publishOwn(_:log:)``, and when it learns that the
///   log moved (another process committed) it calls ``CommitPublisher/publishFromLog(_:newest:)``; the
///   publisher reads what it has not published through a ``ChangeLogReading``;
/// - durable listeners (``DurableListener``) are woken by an ordinary listener and read the log themselves,
///   through this protocol.
///
/// docs/ARCHITECTURE.md has the layer map and the path of a commit through these types. A PostgreSQL engine
/// implements the same protocol over its own change table and `LISTEN`/`NOTIFY`.
package protocol StoreEngine: AnyObject, Sendable {
    /// The engine's change-log entry.
    associatedtype Entry: ChangeLogEntry
    /// What a snapshot read hands its body (the SQLite engine's `SQLiteTransaction`).
    associatedtype Snapshot

    /// Runs `body` on one consistent snapshot; returns its value and which commits the snapshot reflects (on
    /// SQLite every commit up to a sequence and none after it; see ``SnapshotPosition``).
    func readSnapshot<T>(_ body: (Snapshot) throws -> T) throws -> (value: T, position: SnapshotPosition)

    /// One page of the change log after `sequence` (at most `limit` entries, oldest first) and the last
    /// sequence assigned, read in one snapshot. Entries no longer kept (pruned) are simply absent.
    func readLog(after sequence: Int64, limit: Int) throws -> (entries: [Entry], last: Int64)

    /// Moves durable listener `name`'s stored cursor forward to `sequence` (never back), in a write of its own.
    func advanceCursor(of name: String, to sequence: Int64) throws

    /// Whether durable listener `name`'s stored cursor is at or past `sequence` (the handler acknowledged
    /// inside its own write).
    func cursor(of name: String, isAtLeast sequence: Int64) throws -> Bool

    /// Piece `index` of commit `sequence` (see ``ChangeLogEntry/pieceCount``), or nil when the log no longer
    /// holds it (pruned).
    func readPiece(_ index: Int, of sequence: Int64) throws -> Entry?

    /// Moves durable listener `name`'s stored cursor forward (never back) past `piece` of commit `sequence`,
    /// in a write of its own: past the whole commit when it is its last piece.
    func advanceCursor(of name: String, past piece: Commit.Piece, of sequence: Int64) throws

    /// Whether durable listener `name`'s stored cursor is at or past the end of `piece` of commit `sequence`
    /// (the handler acknowledged inside its own write).
    func cursor(of name: String, isPast piece: Commit.Piece, of sequence: Int64) throws -> Bool

    /// How many pieces of the commit after durable listener `name`'s stored cursor sequence are acknowledged
    /// (0 unless it stopped inside a commit logged in pieces).
    func acknowledgedPieces(of name: String) throws -> Int
}

/// An engine whose commits are always one piece.
extension StoreEngine {
    /// Commits are one piece: there is no other.
    package func readPiece(_ index: Int, of sequence: Int64) throws -> Entry? { nil }

    /// A whole commit's acknowledgement.
    package func advanceCursor(of name: String, past piece: Commit.Piece, of sequence: Int64) throws {
        if piece.isLast { try advanceCursor(of: name, to: sequence) }
    }

    /// Whether the whole commit is acknowledged.
    package func cursor(of name: String, isPast piece: Commit.Piece, of sequence: Int64) throws -> Bool {
        try piece.isLast && cursor(of: name, isAtLeast: sequence)
    }

    /// None: commits are whole.
    package func acknowledgedPieces(of name: String) throws -> Int { 0 }
}
