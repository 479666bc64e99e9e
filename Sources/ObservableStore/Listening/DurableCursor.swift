import Foundation
import ObservableStoreCore
import StoreSQLite

/// The SQL of durable cursors.
enum DurableCursor {
    static let table = "_store_listeners"

    /// Moves `name`'s cursor forward to `sequence` (never back), inside `transaction`.
    static func advance(_ name: String, to sequence: Int64, in transaction: Transaction) throws {
        try transaction.execute(
            "UPDATE \(table) SET cursor_seq = max(cursor_seq, ?), updated_at = ? WHERE name = ?",
            [sequence, Timestamp.format(Date()), name])
        try ChangeLog.bumpBookkeeping(on: transaction.connection)
    }
}
