import ObservableStoreCore
import Synchronization

/// How the repository reuses its statements, at two levels (the compiled statements themselves are kept by
/// each connection's `StatementCache`, in StoreSQLite):
///
/// - **Texts**, shared by the process (``texts``): the SQL of each record type's insert, upsert and updates,
///   built once per type, statement kind and column list, then reused.
/// - **Plans**, one set per writer (this class): the insert and update statements a writer used recently,
///   with what a record's values bind to. The next insert or update of the same record type (and, for
///   updates, the same columns) binds its values straight into the statement (`SQLiteTransaction.insert`,
///   `SQLiteTransaction.update`) without building a row of values, asking the shared texts (a lock and a hash) or
///   the type's conformance to ``/ObservableStoreCore/RowEncodable`` again. Used only inside writes, not
///   thread-safe.
final class RecordStatements {
    /// The SQL text of the repository's generated statements, built once per record type, statement kind
    /// and column list (a record type encodes the same columns every time), then reused.
    ///
    /// Building `INSERT INTO "nodes" ("id", "name", …) VALUES (?, ?, …)` for every insert cost more than
    /// SQLite's own work on the row.
    final class Texts: Sendable {
        enum Kind: Hashable {
            case insert, upsert, update, updateColumns
        }

        private struct Key: Hashable {
            var type: ObjectIdentifier
            var kind: Kind
        }

        private struct Entry: Sendable {
            var columns: [String]
            var sql: String
        }

        private let entries = Mutex<[Key: Entry]>([:])

        /// The columns and SQL cached last for `kind` of `type`, if any.
        func entry(for type: Any.Type, _ kind: Kind) -> (columns: [String], sql: String)? {
            entries.withLock { $0[Key(type: ObjectIdentifier(type), kind: kind)].map { ($0.columns, $0.sql) } }
        }

        /// The SQL for `kind` of `type` with `columns`, built by `build` when not cached for these columns.
        func sql(for type: Any.Type, _ kind: Kind, columns: [String], build: () -> String) -> String {
            let key = Key(type: ObjectIdentifier(type), kind: kind)
            if let entry = entries.withLock({ $0[key] }), entry.columns == columns { return entry.sql }
            let sql = build()
            entries.withLock { $0[key] = Entry(columns: columns, sql: sql) }
            return sql
        }
    }

    /// The texts of every record type, shared by the stores of the process.
    static let texts = Texts()

    /// A statement a ``/ObservableStoreCore/RowEncodable`` record's values bind straight into.
    struct Entry {
        /// The record type.
        let type: ObjectIdentifier
        /// The record type, as the ``/ObservableStoreCore/RowEncodable`` it is.
        let encodable: any RowEncodable.Type
        /// The columns the record writes, in its order.
        let columns: [String]
        /// The parameter each of ``columns`` binds to (1-based), 0 for a column the statement does not use;
        /// nil when the parameters are ``columns`` in order (an insert).
        let parameters: [Int32]?
        /// The parameter of the primary key in an update's `WHERE`, 0 for none (an insert).
        let keyParameter: Int32
        let sql: String
    }

    /// An update statement, for the columns it was asked to write (nil: all of them).
    struct Update {
        let requested: [String]?
        let entry: Entry
    }

    /// At most this many update statements are kept; the least recently used goes first.
    static let updateLimit = 8

    /// The last insert statement, if any; nil after a record wrote other columns than its own.
    var insert: Entry?
    /// The recent update statements, the most recent first.
    private(set) var updates: [Update] = []

    /// The update statement of `type` for `requested` columns, if one is kept (it becomes the most recent).
    func update(of type: ObjectIdentifier, requested: [String]?) -> Entry? {
        guard let index = updateIndex(of: type, requested: requested) else { return nil }
        if index > 0 { updates.insert(updates.remove(at: index), at: 0) }
        return updates[0].entry
    }

    /// Keeps `entry` as the update statement of its type for `requested` columns.
    func keepUpdate(_ entry: Entry, requested: [String]?) {
        forgetUpdate(of: entry.type, requested: requested)
        updates.insert(Update(requested: requested, entry: entry), at: 0)
        if updates.count > Self.updateLimit { updates.removeLast() }
    }

    /// Forgets the update statement of `type` for `requested` columns (a record wrote other columns).
    func forgetUpdate(of type: ObjectIdentifier, requested: [String]?) {
        if let index = updateIndex(of: type, requested: requested) { updates.remove(at: index) }
    }

    private func updateIndex(of type: ObjectIdentifier, requested: [String]?) -> Int? {
        updates.firstIndex { $0.entry.type == type && $0.requested == requested }
    }
}
