/// A ``StoreEngine`` whose snapshots are ``StoreTransaction``s: what the observation API of ``RecordStore`` is
/// written once against. An engine supplies only what is its own; the rest has defaults.
package protocol RecordEngine<Snapshot>: StoreEngine where Snapshot: StoreTransaction {
    associatedtype Snapshot

    /// How `values(of:)` keeps `query`'s records current: by default, each commit to its table reads them again.
    /// The SQLite engine evaluates most commits against the held result instead.
    func observation<R: Record>(of query: Query<R>) -> QueryObservation<Snapshot, R>

    /// Stores durable listener `name`'s cursor if it has none (at the last commit for ``DurableStart/now``, before
    /// the first for ``DurableStart/beginning``) and returns what will read the log for it, not yet begun. Throws
    /// when the store does not track changes or its schema cannot hold durable listeners.
    func durableConsumer(
        _ name: String, filter: ChangeFilter, startingAt start: DurableStart,
        handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) throws -> any DurableConsumer
    /// Every durable listener's cursor and lag, by name.
    func durableListenerInfos() throws -> [DurableListenerInfo]
    /// Moves durable listener `name`'s stored cursor to `sequence`, either way; false when there is no such listener.
    func moveDurableCursor(of name: String, to sequence: Int64) throws -> Bool
    /// Deletes durable listener `name`'s stored cursor; whether there was one.
    func deleteDurableCursor(of name: String) throws -> Bool
}

extension RecordEngine {
    /// Each commit to the query's table reads the records again.
    package func observation<R: Record>(of query: Query<R>) -> QueryObservation<Snapshot, R> {
        QueryObservation(fetch: { tx in try tx.fetchAll(query) }, apply: { _ in .refetch })
    }
}

/// How an observed query's records are read (`fetch`) and what each commit to its table does to them (`apply`);
/// see ``ValueBinding``.
package struct QueryObservation<Snapshot, R: Record>: Sendable {
    /// Reads the records in a snapshot.
    package let fetch: @Sendable (Snapshot) throws -> [R]
    /// What a commit to the table does to the records last delivered.
    package let apply: @Sendable (Commit) throws -> ValueBinding.Step<[R]>

    /// An observation that reads with `fetch` and judges commits with `apply`.
    package init(
        fetch: @escaping @Sendable (Snapshot) throws -> [R],
        apply: @escaping @Sendable (Commit) throws -> ValueBinding.Step<[R]>
    ) {
        self.fetch = fetch
        self.apply = apply
    }
}
