#if PostgreSQL
import ObservableStoreCore
import StorePostgres

/// The SQL of durable cursors (`_store_listeners`): every commit up to `cursor_seq` is acknowledged.
enum PostgresDurableCursor {
    /// Moves `name`'s cursor forward to `sequence` (never back), on `connection` (in its transaction, if any).
    static func advance(_ name: String, to sequence: Int64, on connection: ServerConnection) throws {
        try connection.execute(
            "UPDATE _store_listeners SET cursor_seq = $1, cursor_piece = 0, updated_at = clock_timestamp() "
                + "WHERE name = $2 AND cursor_seq < $1", [.integer(sequence), .text(name)])
    }

    /// The acknowledgement inside a handler's transaction: a compare-and-set that moves `name`'s cursor to
    /// `sequence` only from below it. Throws ``StoreError/Code/busy`` when the cursor is already there (another
    /// consumer of the same name acknowledged it: this transaction must roll back, so that its effects happen once).
    static func acknowledge(_ name: String, _ sequence: Int64, on connection: ServerConnection) throws {
        let moved = try connection.execute(
            "UPDATE _store_listeners SET cursor_seq = $1, cursor_piece = 0, updated_at = clock_timestamp() "
                + "WHERE name = $2 AND cursor_seq < $1", [.integer(sequence), .text(name)])
        guard moved == 1 else {
            throw StoreError(
                .busy,
                "durable listener \(name): commit \(sequence) is already acknowledged (by another consumer, or the listener "
                    + "was deleted); roll back this transaction")
        }
    }

    /// `name`'s cursor, creating it at `initial` when there is none.
    static func claim(_ name: String, initial: Int64, on connection: ServerConnection) throws -> Int64 {
        try connection.execute(
            "INSERT INTO _store_listeners (name, cursor_seq) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            [.text(name), .integer(initial)])
        guard case .integer(let cursor) = try connection.query(
            "SELECT cursor_seq FROM _store_listeners WHERE name = $1", [.text(name)]).scalar
        else { throw StoreError(.notFound, "no durable listener named \(name)") }
        return cursor
    }
}
#endif
