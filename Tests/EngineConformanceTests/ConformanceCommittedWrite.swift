/// What an engine's `writeReturningCommit` returns: the closure's value and the commit's sequence.
protocol ConformanceCommittedWrite {
    /// The closure's value.
    associatedtype Value
    /// What the write's closure returned.
    var value: Value { get }
    /// The commit's sequence; nil when the write changed nothing.
    var sequence: Int64? { get }
}
