import Foundation

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
    /// Which piece of a large commit this is (see ``Commit/piece``); ``Commit/Piece/whole`` for most.
    public var piece: Commit.Piece = .whole
}

/// What a typed listener receives.
///
/// A `switch` over it should end with `default:` (or handle every case): new cases may be added.
public enum RecordEvent<R: Record>: Sendable {
    /// A commit that changed records of `R` (or the schema).
    case commit(RecordCommit<R>)
    /// Something happened that the events do not describe: read again what the listener shows.
    case resync(ResyncReason)
    /// A changed row of `R`'s table does not decode as `R`: the table and the record type disagree (a
    /// schema bug, not lag). The ``StoreError`` (code ``StoreError/Code/invalidInput``) names the table,
    /// the column and the commit's sequence; the rest of that commit is not delivered. Refetch, and fix
    /// the record type or the schema. The listener keeps receiving later commits.
    case decodingFailed(StoreError)

    /// Types the events of `R`'s table; a commit with a row that does not decode as `R` becomes `.decodingFailed`.
    package init(_ event: StoreEvent) {
        switch event {
        case .resync(let reason):
            self = .resync(reason)
        case .commit(let commit):
            do {
                let changes = try commit.changes.map { change in
                    RecordChange<R>(
                        operation: change.operation, key: change.key,
                        old: try change.old.map { try Self.decode($0, of: change, in: commit) },
                        new: try change.new.map { try Self.decode($0, of: change, in: commit) },
                        changedColumns: change.changedColumns)
                }
                self = .commit(
                    RecordCommit(
                        sequence: commit.sequence, committedAt: commit.committedAt, origin: commit.origin, changes: changes,
                        schemaChanged: commit.schemaChanged, piece: commit.piece))
            } catch let error as StoreError {
                self = .decodingFailed(error)
            } catch {
                self = .decodingFailed(StoreError(.internal, "\(error)"))
            }
        }
    }

    /// `row` as an `R`, or a ``StoreError`` naming the table, the column and the commit's sequence.
    private static func decode(_ row: Row, of change: Change, in commit: Commit) throws -> R {
        do {
            return try RowReader.decode(R.self, from: row)
        } catch {
            let column: String
            let detail: String
            switch error {
            case let error as DecodingError:
                column = error.column ?? "unknown"
                detail = error.summary
            case let error as StoreError:
                column = "unknown (thrown by \(R.self)'s initializer)"
                detail = error.message
            default:
                column = "unknown (thrown by \(R.self)'s initializer)"
                detail = "\(error)"
            }
            throw StoreError(
                .invalidInput,
                "commit \(commit.sequence): a row of table \(change.table), column \(column), does not decode as \(R.self): \(detail)")
        }
    }
}
