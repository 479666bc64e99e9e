#if PostgreSQL
import Foundation
import ObservableStoreCore

/// One commit of the PostgreSQL change log: its `_store_commits` row and its `_store_changes` rows (row images as
/// jsonb text), decoded into the core's ``Commit`` only when a listener needs it.
///
/// A commit that truncated a table (op `T`: no row images) is an external change for the core: every listener
/// gets `.resync(.externalChange)` for it, in its place in the order.
package struct PostgresLogEntry: ChangeLogEntry {
    /// One logged row change.
    struct LoggedChange: Sendable {
        /// The table (`TG_TABLE_NAME`).
        let table: String
        /// `I`, `U`, `D` or `T`.
        let operation: Character
        /// The row before (U, D), as jsonb text.
        let old: String?
        /// The row after (I, U), as jsonb text.
        let new: String?
    }

    package let sequence: Int64
    let committedAt: Date
    let origin: String?
    let schemaChanged: Bool
    let changes: [LoggedChange]
    /// The layouts of the tables the changes touch, as known when the entry was read.
    let layouts: [String: PostgresTableLayout]

    /// A commit that truncated a table: listeners read everything again.
    package var isExternalChange: Bool { changes.contains { $0.operation == "T" } }

    /// The size of the row images.
    package var encodedSize: Int { changes.reduce(0) { $0 + ($1.old?.utf8.count ?? 0) + ($1.new?.utf8.count ?? 0) + 16 } }

    /// Always one piece: the server holds the whole transaction's changes.
    package var pieceCount: Int { 1 }

    /// The commit with its row changes read from their images. An update that changed the primary key is a delete
    /// then an insert, as on SQLite.
    package func decoded() throws -> Commit {
        var decoded: [Change] = []
        decoded.reserveCapacity(changes.count)
        for change in changes where change.operation != "T" {
            let layout = layouts[change.table]
            let old = try change.old.map { try PostgresRowImage.row($0, layout: layout) }
            let new = try change.new.map { try PostgresRowImage.row($0, layout: layout) }
            let keyColumns = layout?.key ?? []
            func key(_ row: Row) -> [DatabaseValue] { keyColumns.map { row[$0] ?? .null } }
            switch (old, new) {
            case (nil, let new?):
                decoded.append(Change(table: change.table, operation: .insert, key: key(new), old: nil, new: new, changedColumns: new.columns))
            case (let old?, nil):
                decoded.append(Change(table: change.table, operation: .delete, key: key(old), old: old, new: nil, changedColumns: old.columns))
            case (let old?, let new?) where key(old) != key(new):
                decoded.append(Change(table: change.table, operation: .delete, key: key(old), old: old, new: nil, changedColumns: old.columns))
                decoded.append(Change(table: change.table, operation: .insert, key: key(new), old: nil, new: new, changedColumns: new.columns))
            case (let old?, let new?):
                let changed = new.columns.filter { old[$0] != new[$0] }
                decoded.append(Change(table: change.table, operation: .update, key: key(new), old: old, new: new, changedColumns: changed))
            case (nil, nil):
                continue
            }
        }
        return Commit(
            sequence: sequence, committedAt: committedAt, origin: origin, changes: decoded, schemaChanged: schemaChanged,
            isExternalChange: isExternalChange)
    }
}
#endif
