/// A ``StoreEngine`` whose snapshots are ``StoreTransaction``s: what the observation API of ``RecordStore`` is
/// written once against. An engine supplies only what is its own; the rest has defaults.
package protocol RecordEngine<Snapshot>: StoreEngine where Snapshot: StoreTransaction {
    associatedtype Snapshot

    /// How the database compares the values of `columns` of `table`, as `snapshot` sees the schema: what lets
    /// `values(of:)` and `bindAndFire(query:)` judge a commit's rows in memory (``ObservedQueryState``). A column left
    /// out is never judged in memory: by default none is, and every commit to the table that may matter reads again.
    static func columnComparators(
        of table: String, columns: Set<String>, in snapshot: Snapshot
    ) throws -> [String: any ColumnComparator]

    /// Runs `body`, which runs exactly one statement, in a read snapshot: an engine may skip BEGIN and COMMIT, since
    /// one statement is its own snapshot. ``Repository``'s reads.
    func readOneStatement<T>(_ body: (Snapshot) throws -> T) throws -> T
    /// The record of `type` with primary key `key`, or nil: ``Repository/fetch(_:)``. By default, one statement's
    /// read; the SQLite engine reads on a reader connection without a transaction object.
    func fetchRecord<R: Record>(_ type: R.Type, key: R.Key) throws -> R?
    /// The change log from piece `piece` of commit `sequence` on (from the first commit after it when it is gone),
    /// decoded and read in one snapshot: at most `limit` entries, fewer once they hold a few MiB of changes.
    func loggedCommits(from sequence: Int64, piece: Int, limit: Int) throws -> [Commit]
    /// The engine's own migration set, then the configured ones, in apply order.
    var migrationSets: [MigrationSet] { get }
    /// The migration history, ordered by set and version (empty before the first migration).
    func readMigrationHistory() throws -> [AppliedMigration]
    /// The last applied version of the library's own migration set.
    func readSchemaVersion() throws -> Int
    /// `rehearsePendingMigrations()`, as the engine rehearses: the store is left as it was.
    func rehearseMigrations() throws -> [AppliedMigration]
    /// Records the checksum of `migration` of `set`, which must be applied, as the file's; returns the old and new.
    func recordChecksum(of migration: Migration, in set: String) throws -> (old: String, new: String)
    /// Runs `read` in `snapshot` and returns its value and a test of which commits may change it: what
    /// `observe(tracking:)` runs again for. By default every commit may; the SQLite engine records the tables and
    /// columns the read's statements read.
    func tracking<Value>(
        _ read: (Snapshot) throws -> Value, in snapshot: Snapshot
    ) throws -> (value: Value, mayChange: @Sendable (Commit) -> Bool)

    /// Whether the store logs its commits (its configuration's `tracksChanges`): durable listeners need it.
    var tracksChanges: Bool { get }
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
    /// No column is judged in memory.
    package static func columnComparators(
        of table: String, columns: Set<String>, in snapshot: Snapshot
    ) throws -> [String: any ColumnComparator] {
        [:]
    }

    /// How `values(of:)` keeps `query`'s records current: most commits are judged against the held result in memory,
    /// the rest read the query again.
    package func observation<R: Record>(of query: RecordQuery<R>) -> QueryObservation<Snapshot, R> {
        observation(through: observedQueryState(of: query))
    }

    /// The observation that reads and judges commits through `state`.
    package func observation<R: Record>(through state: ObservedQueryState<Snapshot, R>) -> QueryObservation<Snapshot, R> {
        QueryObservation(fetch: { tx in try state.read(in: tx) }, apply: { commit in state.step(for: commit) })
    }

    /// A new observation state of `query` (tests keep it, to count its reads).
    package func observedQueryState<R: Record>(of query: RecordQuery<R>) -> ObservedQueryState<Snapshot, R> {
        ObservedQueryState(query, comparators: Self.columnComparators)
    }

    /// Every commit may change what `read` read.
    package func tracking<Value>(
        _ read: (Snapshot) throws -> Value, in snapshot: Snapshot
    ) throws -> (value: Value, mayChange: @Sendable (Commit) -> Bool) {
        (try read(snapshot), { _ in true })
    }

    /// One statement's read.
    package func fetchRecord<R: Record>(_ type: R.Type, key: R.Key) throws -> R? {
        try readOneStatement { tx in try tx.fetch(type, key: key) }
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
