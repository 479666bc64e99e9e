#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

extension PostgresStore {
    /// Registers a durable listener: its cursor is kept in the database (`_store_listeners`), so after a crash or a
    /// restart, on this host or another, registering the same name again replays every commit it has not
    /// acknowledged, then goes on live — commits of every writer, in sequence order.
    ///
    /// One consumer per name across all processes and hosts: the listener first takes a session advisory lock on
    /// a connection of its own. While another session holds the name, this one stands by (retrying every 250 ms,
    /// up to ``PostgresStoreConfiguration/durableListenerClaimTimeout``) and takes over when that session ends.
    ///
    /// A commit is acknowledged when the handler returns (at-least-once), or inside the handler's own write with a
    /// compare-and-set on the cursor (exactly-once effects). A handler that throws leaves the commit
    /// unacknowledged; it is delivered again. If the change log no longer holds commits after the cursor
    /// (retention), the listener gets `.resync(.cursorExpired(missed:))`; a commit that truncated a table comes as
    /// `.resync(.externalChange)`.
    ///
    /// The same name again replaces the listener in this process, as for ``listen(_:filter:options:handler:)``.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = try store.listenDurably("mailer", filter: .table("user_info")) { event in
    ///     if case .commit(let delivery) = event { try mailer.send(for: delivery.commit) }
    /// }
    /// ```
    public func listenDurably(
        _ name: String, filter: ChangeFilter = .all, startingAt start: DurableStart = .now,
        handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) throws -> ListenerToken {
        guard configuration.tracksChanges else {
            throw StoreError(.invalidInput, "durable listeners need change tracking (PostgresStoreConfiguration.tracksChanges)")
        }
        try pool.withConnection { connection in
            let initial = start == .now ? try ServerLogReader.head(on: connection) : 0
            _ = try ServerDurableCursor.claim(name, initial: initial, on: connection)
        }
        let claim = ServerDurableClaim(name: name, filter: filter, store: self, handler: handler)
        // A one-slot wake-up listener: events only start a read of the log, by the claim that holds the name.
        let wakeUp = makeListener(name, filter: .all, options: ListenerOptions(bufferSize: 1)) { _ in
            claim.wake()
            return true
        }
        wakeUp.onCancel = { claim.stop() }
        let token = register(wakeUp)
        claim.begin()
        return token
    }

    /// Every durable listener's cursor and lag, by name.
    public func durableListeners() throws -> [DurableListenerInfo] {
        try withSnapshot { connection in
            let last = try ServerLogReader.head(on: connection)
            return try connection.query(
                "SELECT name, cursor_seq, updated_at FROM _store_listeners ORDER BY name"
            ).namedRows.map { row in
                let cursor = row.value("cursor_seq", as: Int64.self) ?? 0
                return DurableListenerInfo(
                    name: row.value("name") ?? "", cursor: cursor, lag: max(0, last - cursor),
                    updatedAt: row.value("updated_at") ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// Moves durable listener `name`'s cursor to `sequence` (back to replay, forward to skip).
    /// Throws ``/ObservableStoreCore/StoreError/Code/notFound`` when there is no such listener. Takes effect at its
    /// next registration (or takeover).
    public func resetDurableListener(_ name: String, to sequence: Int64) throws {
        let changed = try pool.withConnection { connection in
            try connection.execute(
                "UPDATE _store_listeners SET cursor_seq = $1, cursor_piece = 0, updated_at = clock_timestamp() WHERE name = $2",
                [.integer(sequence), .text(name)])
        }
        guard changed > 0 else { throw StoreError(.notFound, "no durable listener named \(name)") }
    }

    /// Deletes durable listener `name` and its cursor (it no longer holds back log pruning).
    /// Returns whether it existed.
    @discardableResult
    public func deleteDurableListener(_ name: String) throws -> Bool {
        removeListener(name)
        return try pool.withConnection { connection in
            try connection.execute("DELETE FROM _store_listeners WHERE name = $1", [.text(name)]) > 0
        }
    }
}
#endif
