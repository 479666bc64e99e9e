import Foundation

/// One row changed by a commit: which table, what happened, its primary key, and its values before
/// and after.
///
/// For example:
///
/// ```swift
/// for change in commit.changes where change.table == "nodes" && change.operation == .update {
///     print(change.key, change.changedColumns, change.new?.value("x", as: Double.self) ?? 0)
/// }
/// ```
public struct Change: Sendable, Equatable {
    /// What happened to the row.
    public enum Operation: String, Sendable, Equatable {
        /// A new row.
        case insert
        /// Columns of an existing row changed (its primary key did not).
        case update
        /// The row is gone. A primary-key change is reported as a delete then an insert.
        case delete
    }

    /// The table's name.
    public let table: String
    /// What happened.
    public let operation: Operation
    /// The declared primary key's values (one per key column); the rowid for a table without one.
    public let key: [DatabaseValue]
    /// Every column before the change (update, delete).
    public let old: Row?
    /// Every column after the change (insert, update).
    public let new: Row?
    /// Update: the columns whose value differs. Insert and delete: every column.
    public let changedColumns: [String]

    /// Makes a change.
    public init(table: String, operation: Operation, key: [DatabaseValue], old: Row?, new: Row?, changedColumns: [String]) {
        self.table = table
        self.operation = operation
        self.key = key
        self.old = old
        self.new = new
        self.changedColumns = changedColumns
    }
}

/// Everything one transaction changed, delivered once after it committed.
public struct Commit: Sendable, Equatable {
    /// The store-wide commit number: gap-free and increasing, across every process writing through the library.
    public let sequence: Int64
    /// When the commit was made (to the millisecond).
    public let committedAt: Date
    /// The tag the writer passed to `write(origin:)`, if any.
    public let origin: String?
    /// The row changes, in the order they were made (those matching the listener's filter).
    public let changes: [Change]
    /// Whether the transaction changed the schema (CREATE, DROP, ALTER): cached reads should be refreshed.
    public let schemaChanged: Bool
    /// Whether this log entry stands for a write made by a program that does not log its changes (the
    /// `sqlite3` shell, another library): no changes are known. Listeners receive it as
    /// ``StoreEvent/externalChange``; it shows as a commit only where the log is read directly
    /// (`Store.commits(after:limit:)`).
    public let isExternalChange: Bool

    /// Makes a commit.
    public init(
        sequence: Int64, committedAt: Date, origin: String?, changes: [Change], schemaChanged: Bool,
        isExternalChange: Bool = false
    ) {
        self.sequence = sequence
        self.committedAt = committedAt
        self.origin = origin
        self.changes = changes
        self.schemaChanged = schemaChanged
        self.isExternalChange = isExternalChange
    }
}

/// What a listener receives.
public enum StoreEvent: Sendable, Equatable {
    /// A commit with at least one change matching the listener's filter (or a schema change).
    case commit(Commit)
    /// The listener fell too far behind and missed these commits: refetch what it shows.
    case gap(missed: ClosedRange<Int64>)
    /// The file was changed by a writer that does not log its changes (the `sqlite3` shell, another
    /// library): which rows changed is unknown, so refetch what you show.
    case externalChange

    /// The commit sequence the event is about (the last missed one for a gap; nil for an external change).
    public var sequence: Int64? {
        switch self {
        case .commit(let commit): commit.sequence
        case .gap(let missed): missed.upperBound
        case .externalChange: nil
        }
    }
}
