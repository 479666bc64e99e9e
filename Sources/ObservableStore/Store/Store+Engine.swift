import ObservableStoreCore
import StoreSQLite

// The SQLite engine's side of the core's engine protocol: snapshots on reader connections, the change log
// (`_store_commits`), and durable cursors (`_store_listeners`).
extension Store: StoreEngine {
    package func readSnapshot<T>(_ body: (Transaction) throws -> T) throws -> (value: T, sequence: Int64) {
        try read { tx in (try body(tx), try ChangeLog.lastSequence(tx)) }
    }

    package func readLog(after sequence: Int64, limit: Int) throws -> (entries: [LoggedCommit], last: Int64) {
        try read { tx in
            (try ChangeLog.read(after: sequence, limit: limit, on: tx.connection), try ChangeLog.position(on: tx.connection).last)
        }
    }

    package func advanceCursor(of name: String, to sequence: Int64) throws {
        try write { tx in try DurableCursor.advance(name, to: sequence, in: tx) }
    }

    package func cursor(of name: String, isAtLeast sequence: Int64) throws -> Bool {
        try read { tx in
            try tx.fetchValue("SELECT cursor_seq >= ? FROM \(DurableCursor.table) WHERE name = ?", [sequence, name]) == .integer(1)
        }
    }
}
