import Foundation
import ObservableStoreCore
import StoreSQLite

extension Store {
    /// Registers a durable listener: its cursor is kept in the store, so after a crash or restart,
    /// registering the same name again replays every commit it has not acknowledged, then goes on live
    /// — commits of every process, in sequence order.
    ///
    /// A commit is acknowledged when the handler returns (at-least-once: a crash in the handler
    /// redelivers it), or inside the handler's own write with ``ObservableStoreCore/DurableCommit/acknowledge(in:)``
    /// (exactly-once effects). A handler that throws leaves the commit unacknowledged; it is delivered
    /// again at the next commit or restart. If the change log no longer holds commits after the cursor
    /// (retention), the listener gets `.resync(.cursorExpired(missed:))` and must read its data again.
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
            throw StoreError(.invalidInput, "durable listeners need change tracking (StoreConfiguration.tracksChanges)")
        }
        let cursor = try write { tx -> Int64 in
            // The cursor's piece column and the log's pieces come with migration 0007.
            guard try ChangeLog.hasPieces(on: tx.connection) else {
                throw StoreError(.migrationNeeded, "durable listeners need the library's migrations through 0007 (the change log in pieces); migrate the store")
            }
            let initial = start == .now ? try ChangeLog.lastSequence(tx) : 0
            try tx.execute(
                "INSERT INTO \(DurableCursor.table) (name, cursor_seq, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING",
                [name, initial, Timestamp.format(Date())])
            try ChangeLog.bumpBookkeeping(on: tx.connection)
            return try tx.fetchValue("SELECT cursor_seq FROM \(DurableCursor.table) WHERE name = ?", [name])
                .flatMap(Int64.fromDatabaseValue) ?? initial
        }
        let durable = DurableListener(
            name: name, filter: filter, cursor: cursor, cursorPieces: try acknowledgedPieces(of: name), engine: self, context: registry.context, logger: configuration.logger,
            errorHandler: configuration.listenerErrorHandler, handler: handler)
        // A one-slot wake-up listener: events only start a pump; the pump reads the log itself.
        let wakeUp = makeListener(name, filter: .all, options: ListenerOptions(bufferSize: 1)) { _ in
            durable.wake()
            return true
        }
        wakeUp.onCancel = { durable.stop() }
        let token = register(wakeUp)
        durable.wake()  // replay what is after the cursor
        return token
    }

    /// Every durable listener's cursor and lag, by name.
    public func durableListeners() throws -> [DurableListenerInfo] {
        try read { tx in
            let last = try ChangeLog.lastSequence(tx)
            return try tx.fetchRows("SELECT name, cursor_seq, updated_at FROM \(DurableCursor.table) ORDER BY name").map { row in
                let cursor = row.value("cursor_seq", as: Int64.self) ?? 0
                return DurableListenerInfo(
                    name: row.value("name") ?? "", cursor: cursor, lag: max(0, last - cursor),
                    updatedAt: row.value("updated_at") ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// Moves durable listener `name`'s cursor to `sequence` (back to replay, forward to skip).
    /// Throws ``/ObservableStoreCore/StoreError/Code/notFound`` when there is no such listener. Takes effect at its next registration.
    public func resetDurableListener(_ name: String, to sequence: Int64) throws {
        try write { tx in
            let changed = try tx.execute(
                "UPDATE \(DurableCursor.table) SET cursor_seq = ?, cursor_piece = 0, updated_at = ? WHERE name = ?",
                [sequence, Timestamp.format(Date()), name])
            guard changed > 0 else { throw StoreError(.notFound, "no durable listener named \(name)") }
            try ChangeLog.bumpBookkeeping(on: tx.connection)
        }
    }

    /// Deletes durable listener `name` and its cursor (it no longer holds back log pruning).
    /// Returns whether it existed.
    @discardableResult
    public func deleteDurableListener(_ name: String) throws -> Bool {
        removeListener(name)
        return try write { tx in
            let changed = try tx.execute("DELETE FROM \(DurableCursor.table) WHERE name = ?", [name])
            if changed > 0 { try ChangeLog.bumpBookkeeping(on: tx.connection) }
            return changed > 0
        }
    }
}
