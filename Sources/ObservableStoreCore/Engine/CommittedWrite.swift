/// What an engine's `writeReturningCommit(origin:_:)` returns (the SQLite `SQLiteStore`'s, the `PostgresStore`'s): the
/// closure's value and the commit's sequence.
public struct CommittedWrite<Value> {
    /// What the write's closure returned.
    public let value: Value
    /// The sequence number of the commit the write made (``Commit/sequence``), as listeners will see it;
    /// nil when the write changed no row and no schema (no commit was logged, no event follows), or the
    /// store does not track changes.
    public let sequence: Int64?

    /// The value and sequence of a finished write.
    package init(value: Value, sequence: Int64?) {
        self.value = value
        self.sequence = sequence
    }
}

extension CommittedWrite: Sendable where Value: Sendable {}
extension CommittedWrite: Equatable where Value: Equatable {}
