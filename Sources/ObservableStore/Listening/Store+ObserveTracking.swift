import Foundation
import ObservableStoreCore

extension Store {
    /// Any read — several queries, a count, a join, raw SQL — as an `AsyncSequence` kept current: the value
    /// `read` returns now, then again after each commit that may change it (see
    /// ``/ObservableStoreCore/ObservedValues``). Each element carries the commit sequence it reflects.
    ///
    /// While `read` runs, the store records the tables and columns its statements read (SQLite's authorizer
    /// reports them). A commit runs `read` again only when it inserts or deletes rows of one of those
    /// tables, or updates one of the columns read (any column of a table read as a whole, as by `count(*)`);
    /// a commit to other tables, or to other columns, does not run it. A schema change, missed commits or
    /// another program's write always run it again. The region is recorded again at each run, so a read that
    /// reads other tables depending on the data is followed correctly. Values are compared with `==`: an
    /// unchanged result is not delivered again.
    ///
    /// For example:
    ///
    /// ```swift
    /// struct Overview: Equatable, Sendable {
    ///     var farNodes: [NodeVO]
    ///     var userCount: Int
    /// }
    /// let overviews = try store.observe(tracking: { tx in
    ///     Overview(
    ///         farNodes: try tx.fetchAll(Query<NodeVO>().filter("x", .greaterThan, 100.0)),
    ///         userCount: try tx.fetchValue("SELECT count(*) FROM user_info").flatMap(Int.fromDatabaseValue) ?? 0)
    /// })
    /// for try await overview in overviews {
    ///     print(overview.sequence, overview.value.farNodes.count, overview.value.userCount)
    /// }
    /// ```
    ///
    /// `read` runs on a reader connection, on the store's threads: read only through the `Transaction` it is
    /// given (a read through another store or connection is not tracked), and keep it free of side effects.
    /// A read that throws ends the sequence with its error; this throws when the store cannot be read at all
    /// (closed).
    public func observe<Value: Sendable & Equatable>(
        tracking read: @escaping @Sendable (Transaction) throws -> Value
    ) throws -> ObservedValues<Value> {
        // Until a read recorded its region, any commit runs it.
        let region = LockedValue(ReadRegion.wholeDatabase)
        // The core's observed values, with the default listener buffer: a commit that is skipped must be seen to
        // be skipped. With a buffer of 1, a burst of commits to other tables would overflow it, and the
        // missed-commits resync that follows runs the read. A burst of relevant commits still runs it about once:
        // the read reflects the newest commit, and the buffered ones up to that one are dropped.
        return try observe(
            filter: .all,
            fetch: { tx in
                let (value, recorded) = try ReadRegion.recording(in: tx) { try read(tx) }
                region.value = recorded
                return value
            },
            apply: { commit in region.value.isChanged(by: commit) ? .refetch : .skip },
            isSame: ==)
    }
}
