import Foundation
import ObservableStoreCore
import StoreSQLite

/// The SQL of durable cursors. A cursor is (`cursor_seq`, `cursor_piece`): every commit up to `cursor_seq`
/// acknowledged, and the first `cursor_piece` pieces of the commit after it (a commit logged in pieces).
enum DurableCursor {
    static let table = "_store_listeners"

    /// Moves `name`'s cursor forward to `sequence` (never back), inside `transaction`.
    static func advance(_ name: String, to sequence: Int64, in transaction: SQLiteTransaction) throws {
        try advance(name, past: .whole, of: sequence, in: transaction)
    }

    /// Moves `name`'s cursor forward (never back) past `piece` of commit `sequence`, inside `transaction`: past
    /// the whole commit when it is its last piece.
    static func advance(_ name: String, past piece: Commit.Piece, of sequence: Int64, in transaction: SQLiteTransaction) throws {
        let (cursor, pieces) = position(past: piece, of: sequence)
        try transaction.execute(
            "UPDATE \(table) SET cursor_piece = CASE WHEN cursor_seq < ?1 OR (cursor_seq = ?1 AND cursor_piece < ?2) "
                + "THEN ?2 ELSE cursor_piece END, cursor_seq = max(cursor_seq, ?1), updated_at = ?3 WHERE name = ?4",
            [cursor, Int64(pieces), Timestamp.format(Date()), name])
        try ChangeLog.bumpBookkeeping(on: transaction.connection)
    }

    /// Moves `name`'s cursor past `piece` of commit `sequence` inside `transaction`, only if it is not there yet (a
    /// compare-and-set); throws ``/ObservableStoreCore/StoreError/Code/busy`` when it is (another consumer
    /// acknowledged it) or when there is no such listener.
    static func acknowledge(_ name: String, past piece: Commit.Piece, of sequence: Int64, in transaction: SQLiteTransaction) throws {
        let (cursor, pieces) = position(past: piece, of: sequence)
        let moved = try transaction.execute(
            "UPDATE \(table) SET cursor_seq = ?1, cursor_piece = ?2, updated_at = ?3 "
                + "WHERE name = ?4 AND (cursor_seq < ?1 OR (cursor_seq = ?1 AND cursor_piece < ?2))",
            [cursor, Int64(pieces), Timestamp.format(Date()), name])
        guard moved == 1 else {
            throw StoreError(
                .busy,
                "durable listener \(name): commit \(sequence) is already acknowledged (by another consumer, or the listener "
                    + "was deleted); roll back this transaction")
        }
        try ChangeLog.bumpBookkeeping(on: transaction.connection)
    }

    /// Whether `name`'s cursor is at or past the end of `piece` of commit `sequence`.
    static func isPast(_ name: String, piece: Commit.Piece, of sequence: Int64, in transaction: SQLiteTransaction) throws -> Bool {
        let (cursor, pieces) = position(past: piece, of: sequence)
        return try transaction.fetchValue(
            "SELECT cursor_seq > ?1 OR (cursor_seq = ?1 AND cursor_piece >= ?2) FROM \(table) WHERE name = ?3",
            [cursor, Int64(pieces), name]) == .integer(1)
    }

    /// The cursor that stands just past `piece` of commit `sequence`.
    private static func position(past piece: Commit.Piece, of sequence: Int64) -> (sequence: Int64, pieces: Int) {
        piece.isLast ? (sequence, 0) : (sequence - 1, piece.index + 1)
    }
}
