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
