import Foundation
import ObservableStoreCore

/// The SQL text of the repository's generated statements, built once per record type, statement kind
/// and column list (a record type encodes the same columns every time), then reused.
///
/// Building `INSERT INTO "nodes" ("id", "name", …) VALUES (?, ?, …)` for every insert cost more than
/// SQLite's own work on the row. `@unchecked Sendable`: `entries` is guarded by `lock`.
final class StatementTextCache: @unchecked Sendable {
    enum Kind: Hashable {
        case insert, upsert, update, updateColumns
    }

    private struct Key: Hashable {
        var type: ObjectIdentifier
        var kind: Kind
    }

    private struct Entry {
        var columns: [String]
        var sql: String
    }

    static let shared = StatementTextCache()
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]

    /// The columns and SQL cached last for `kind` of `type`, if any.
    func entry(for type: Any.Type, _ kind: Kind) -> (columns: [String], sql: String)? {
        lock.withLock { entries[Key(type: ObjectIdentifier(type), kind: kind)].map { ($0.columns, $0.sql) } }
    }

    /// The SQL for `kind` of `type` with `columns`, built by `build` when not cached for these columns.
    func sql(for type: Any.Type, _ kind: Kind, columns: [String], build: () -> String) -> String {
        let key = Key(type: ObjectIdentifier(type), kind: kind)
        if let entry = lock.withLock({ entries[key] }), entry.columns == columns { return entry.sql }
        let sql = build()
        lock.withLock { entries[key] = Entry(columns: columns, sql: sql) }
        return sql
    }
}
