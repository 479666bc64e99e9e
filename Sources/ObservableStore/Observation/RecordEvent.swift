import Foundation
import StoreSQLite

/// One change to a record of type `R`, with the record decoded before and after.
public struct RecordChange<R: Record>: Sendable {
    /// What happened to the row.
    public let operation: Change.Operation
    /// The primary key's values.
    public let key: [DatabaseValue]
    /// The record before the change (update, delete).
    public let old: R?
    /// The record after the change (insert, update).
    public let new: R?
    /// Update: the columns whose value differs. Insert and delete: every column.
    public let changedColumns: [String]
}

/// A commit's changes to `R`'s table, typed.
public struct RecordCommit<R: Record>: Sendable {
    /// The store-wide commit number.
    public let sequence: Int64
    /// When the commit was made.
    public let committedAt: Date
    /// The writer's origin tag, if any.
    public let origin: String?
    /// The changes to `R`'s table that matched the filter, in order.
    public let changes: [RecordChange<R>]
    /// Whether the commit changed the schema.
    public let schemaChanged: Bool
}

/// What a typed listener receives.
public enum RecordEvent<R: Record>: Sendable {
    /// A commit that changed records of `R` (or the schema).
    case commit(RecordCommit<R>)
    /// Commits were missed (the listener fell behind, or a row no longer decodes as `R`): refetch.
    case gap(missed: ClosedRange<Int64>)
    /// A writer that does not log its changes changed the file: refetch.
    case externalChange

    /// Types the events of `R`'s table; a change whose row does not decode as `R` turns the commit into a gap.
    init(_ event: StoreEvent) {
        switch event {
        case .gap(let missed):
            self = .gap(missed: missed)
        case .externalChange:
            self = .externalChange
        case .commit(let commit):
            do {
                let changes = try commit.changes.map { change in
                    RecordChange<R>(
                        operation: change.operation, key: change.key, old: try change.old.map { try $0.decode(R.self) },
                        new: try change.new.map { try $0.decode(R.self) }, changedColumns: change.changedColumns)
                }
                self = .commit(
                    RecordCommit(
                        sequence: commit.sequence, committedAt: commit.committedAt, origin: commit.origin, changes: changes,
                        schemaChanged: commit.schemaChanged))
            } catch {
                self = .gap(missed: commit.sequence...commit.sequence)
            }
        }
    }
}
