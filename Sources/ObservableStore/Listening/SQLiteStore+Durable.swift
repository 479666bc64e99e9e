import Foundation
import ObservableStoreCore
import StoreSQLite

// The SQLite engine's durable listeners: cursors in `_store_listeners`, read by the core's `DurableListener` (the
// public API is the core's `RecordStore+Durable`).
extension SQLiteStore {
    package func durableConsumer(
        _ name: String, filter: ChangeFilter, startingAt start: DurableStart,
        handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) throws -> any DurableConsumer {
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
        return DurableListener(
            name: name, filter: filter, cursor: cursor, cursorPieces: try acknowledgedPieces(of: name), engine: self,
            context: registry.context, logger: configuration.logger, errorHandler: configuration.listenerErrorHandler,
            handler: handler)
    }

    package func durableListenerInfos() throws -> [DurableListenerInfo] {
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

    package func moveDurableCursor(of name: String, to sequence: Int64) throws -> Bool {
        try write { tx in
            let changed = try tx.execute(
                "UPDATE \(DurableCursor.table) SET cursor_seq = ?, cursor_piece = 0, updated_at = ? WHERE name = ?",
                [sequence, Timestamp.format(Date()), name])
            if changed > 0 { try ChangeLog.bumpBookkeeping(on: tx.connection) }
            return changed > 0
        }
    }

    package func deleteDurableCursor(of name: String) throws -> Bool {
        try write { tx in
            let changed = try tx.execute("DELETE FROM \(DurableCursor.table) WHERE name = ?", [name])
            if changed > 0 { try ChangeLog.bumpBookkeeping(on: tx.connection) }
            return changed > 0
        }
    }
}
