#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

// The PostgreSQL engine's durable listeners: cursors in `_store_listeners`, one consumer per name across hosts (a
// ``PostgresDurableClaim``); the public API is the core's `RecordStore+Durable`.
extension PostgresStore {
    package func durableConsumer(
        _ name: String, filter: ChangeFilter, startingAt start: DurableStart,
        handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) throws -> any DurableConsumer {
        try pool.withConnection { connection in
            let initial = start == .now ? try PostgresLogReader.head(on: connection) : 0
            _ = try PostgresDurableCursor.claim(name, initial: initial, on: connection)
        }
        return PostgresDurableClaim(name: name, filter: filter, store: self, handler: handler)
    }

    package func durableListenerInfos() throws -> [DurableListenerInfo] {
        try withSnapshot { connection in
            let last = try PostgresLogReader.head(on: connection)
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

    package func moveDurableCursor(of name: String, to sequence: Int64) throws -> Bool {
        try pool.withConnection { connection in
            try connection.execute(
                "UPDATE _store_listeners SET cursor_seq = $1, cursor_piece = 0, updated_at = clock_timestamp() WHERE name = $2",
                [.integer(sequence), .text(name)])
        } > 0
    }

    package func deleteDurableCursor(of name: String) throws -> Bool {
        try pool.withConnection { connection in
            try connection.execute("DELETE FROM _store_listeners WHERE name = $1", [.text(name)]) > 0
        }
    }
}
#endif
