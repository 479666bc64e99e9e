import ObservableStoreCore
import Synchronization

/// The SQL text of the repository's generated statements, built once per record type, statement kind
/// and column list (a record type encodes the same columns every time), then reused.
///
/// Building `INSERT INTO "nodes" ("id", "name", …) VALUES (?, ?, …)` for every insert cost more than
/// SQLite's own work on the row.
final class StatementTextCache: Sendable {
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

    static let shared = StatementTextCache()
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
