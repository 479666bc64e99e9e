
/// Which changes a listener wants. Every condition that is set must hold; unset ones match everything.
///
/// For example:
///
/// ```swift
/// // Updates of node 7 that moved it, made by anyone but this view.
/// let filter = ChangeFilter(tables: ["nodes"], keys: [.integer(7)], columns: ["x", "y"], excludedOrigins: ["canvas"])
/// ```
public struct ChangeFilter: Sendable {
    /// Only changes to these tables (nil: every table).
    public var tables: Set<String>?
    /// Only rows whose (single-column) primary key is one of these (nil: every row).
    public var keys: Set<DatabaseValue>?
    /// Only updates that changed one of these columns; inserts and deletes always match (nil: any update).
    public var columns: Set<String>?
    /// Only commits written with one of these origins (nil: any origin, including none).
    public var origins: Set<String>?
    /// Never commits written with one of these origins (e.g. skip my own writes).
    public var excludedOrigins: Set<String>

    /// A filter; with no arguments it matches every change.
    public init(
        tables: Set<String>? = nil, keys: Set<DatabaseValue>? = nil, columns: Set<String>? = nil,
        origins: Set<String>? = nil, excludedOrigins: Set<String> = []
    ) {
        self.tables = tables
        self.keys = keys
        self.columns = columns
        self.origins = origins
        self.excludedOrigins = excludedOrigins
    }

    /// Every change.
    public static var all: ChangeFilter { ChangeFilter() }

    /// Every change to `table`.
    public static func table(_ table: String) -> ChangeFilter { ChangeFilter(tables: [table]) }

    /// Whether a commit written with `origin` can match.
    // Both run for every change delivered: the sets are read in place (`tables?.contains`), not bound to a
    // copy (`if let tables`), and an empty set is not hashed into.
    package func matches(origin: String?) -> Bool {
        if let origin, !excludedOrigins.isEmpty, excludedOrigins.contains(origin) { return false }
        if origins == nil { return true }
        guard let origin else { return false }
        return origins?.contains(origin) == true
    }

    /// Whether `change` matches the table, key and column conditions.
    package func matches(_ change: Change) -> Bool {
        if tables?.contains(change.table) == false { return false }
        if keys != nil {
            guard change.key.count == 1, keys?.contains(change.key[0]) == true else { return false }
        }
        if columns != nil, change.operation == .update,
            !change.changedColumns.contains(where: { columns?.contains($0) == true })
        {
            return false
        }
        return true
    }

    /// The part of `commit` this filter lets through, or nil when nothing matches. A schema change
    /// always goes through (every listener must refresh), with whatever changes matched.
    /// Listeners get exactly this; tools that read the log (`storectl watch`) use it the same way.
    public func apply(_ commit: Commit) -> Commit? {
        guard matches(origin: commit.origin) else { return nil }
        if !commit.changes.isEmpty, commit.changes.allSatisfy(matches) { return commit }  // the usual case: no copy
        let changes = commit.changes.filter(matches)
        if changes.isEmpty && !commit.schemaChanged { return nil }
        if changes.count == commit.changes.count { return commit }
        return commit.with(changes: changes)
    }
}
