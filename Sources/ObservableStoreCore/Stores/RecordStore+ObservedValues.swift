import Foundation

extension RecordStore {
    /// The records `query` selects, as an `AsyncSequence` kept current: the current records first, then the records
    /// again after each commit that changes them (see ``ObservedValues``). Each element carries the commit sequence
    /// it reflects. Records are compared with `==`.
    ///
    /// Each commit to the query's table is judged against the held result in memory, with the engine's comparison
    /// rules: a commit whose rows match the filters neither before nor after reads nothing, one whose effect is
    /// certain updates the result, and only the rest read the query again (a filter only the database evaluates,
    /// such as `filter(sql:)` or `LIKE`; a column type or collation whose order is not modelled; a row leaving a
    /// result cut by `limit`). A read that fails ends the sequence with its error; this throws when the store cannot
    /// be read at all (closed).
    public func values<R: Record & Equatable>(of query: RecordQuery<R>) throws -> ObservedValues<[R]> {
        try observe(engineHandle.engine.observation(of: query), isSame: ==)
    }

    /// The same for a record type that is not `Equatable`: its records are compared by the values of their columns.
    public func values<R: Record>(of query: RecordQuery<R>) throws -> ObservedValues<[R]> {
        try observe(engineHandle.engine.observation(of: query), isSame: RowEncoder.sameRecords)
    }

    /// The record of `type` whose primary key is `key` (nil while there is none), as an `AsyncSequence` kept
    /// current: a new element after each commit that inserts, changes or deletes it.
    public func value<R: Record>(of type: R.Type, key: R.Key) throws -> ObservedValues<R?> {
        let keyValue = key.databaseValue
        return try observe(
            filter: ChangeFilter(tables: [R.tableName], keys: [keyValue]), fetch: { tx in try tx.fetch(R.self, key: key) },
            apply: { commit in try ValueBinding.recordStep(for: commit, key: keyValue, R.self) },
            isSame: RowEncoder.sameRecord)
    }

    /// Any read — several queries, a count, a join, raw SQL — as an `AsyncSequence` kept current: the value `read`
    /// returns now, then again after each commit that may change it (see ``ObservedValues``). Each element carries
    /// the commit sequence it reflects. Values are compared with `==`: an unchanged result is not delivered again.
    ///
    /// Which commits run `read` again: on SQLite, the store records the tables and columns its statements read
    /// (SQLite's authorizer reports them), and a commit runs it again only when it inserts or deletes rows of one of
    /// those tables or updates one of the columns read (any column of a table read as a whole, as by `count(*)`). A
    /// schema change, missed commits or another program's write always run it again, and the region is recorded
    /// again at each run, so a read that reads other tables depending on the data is followed correctly. On
    /// PostgreSQL every commit runs it again (one snapshot read; values coalesce under a burst).
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
    ///         farNodes: try tx.fetchAll(RecordQuery<NodeVO>().filter("x", .greaterThan, 100.0)),
    ///         userCount: try tx.fetchValue("SELECT count(*) FROM user_info", []).flatMap(Int.fromDatabaseValue) ?? 0)
    /// })
    /// for try await overview in overviews {
    ///     print(overview.sequence, overview.value.farNodes.count, overview.value.userCount)
    /// }
    /// ```
    ///
    /// `read` runs on the store's threads: read only through the transaction it is given (a read through another
    /// store or connection is not tracked), and keep it free of side effects. A read that throws ends the sequence
    /// with its error; this throws when the store cannot be read at all (closed).
    public func observe<Value: Sendable & Equatable>(
        tracking read: @escaping @Sendable (Transaction) throws -> Value
    ) throws -> ObservedValues<Value> {
        // Weak: the listener lives in the store's registry, and must not keep the store alive.
        let store = WeakReference(self)
        // Until a read recorded what it read, any commit runs it.
        let mayChange = LockedValue<@Sendable (Commit) -> Bool>({ _ in true })
        // The default listener buffer: a commit that is skipped must be seen to be skipped. With a buffer of 1, a
        // burst of commits to other tables would overflow it, and the missed-commits resync that follows runs the
        // read. A burst of relevant commits still runs it about once: the read reflects the newest commit, and the
        // buffered ones up to that one are dropped.
        return try observe(
            filter: .all,
            fetch: { tx in
                guard let store = store.object else { throw StoreError(.transactionMisuse, "the store is closed") }
                let (value, recorded) = try store.engineHandle.engine.tracking(read, in: tx)
                mayChange.value = recorded
                return value
            },
            apply: { commit in mayChange.value(commit) ? .refetch : .skip },
            isSame: ==)
    }

    /// A query's records observed through `state` (tests keep it, to count its reads).
    package func observe<R: Record>(
        _ state: ObservedQueryState<Transaction, R>, isSame: @escaping @Sendable ([R], [R]) -> Bool
    ) throws -> ObservedValues<[R]> {
        try observe(engineHandle.engine.observation(through: state), isSame: isSame)
    }

    /// A query's records observed as `observation` says.
    package func observe<R: Record>(
        _ observation: QueryObservation<Transaction, R>, isSame: @escaping @Sendable ([R], [R]) -> Bool
    ) throws -> ObservedValues<[R]> {
        try observe(filter: .table(R.tableName), fetch: observation.fetch, apply: observation.apply, isSame: isSame)
    }

    /// Binds a stream listener (no name) to the value `fetch` reads, through a channel that keeps the latest value
    /// (``ObservedValues``). A read that fails, or a changed row that does not decode, ends the sequence with its
    /// error instead of going to the listener error handler.
    ///
    /// The listener keeps the default buffer: a burst of commits is judged one by one (most are skipped or applied
    /// without reading); only an overflow makes it read again. The channel coalesces the values.
    package func observe<Value: Sendable>(
        filter: ChangeFilter, fetch: @escaping @Sendable (Transaction) throws -> Value,
        apply: @escaping @Sendable (Commit) throws -> ValueBinding.Step<Value>,
        isSame: @escaping @Sendable (Value, Value) -> Bool
    ) throws -> ObservedValues<Value> {
        let channel = LatestValueChannel<Value>(isSame: isSame)
        let token = try bind(
            "values-\(UUID().uuidString)", filter: filter, options: ListenerOptions(), isStream: true,
            fetch: { tx in Result { try fetch(tx) } },
            apply: { commit in
                do {
                    switch try apply(commit) {
                    case .skip: return .skip
                    case .refetch: return .refetch
                    case .deliver(let value): return .deliver(.success(value))
                    }
                } catch {
                    return .deliver(.failure(error))
                }
            },
            deliver: { [weak channel] result, sequence in
                switch result {
                case .success(let value): channel?.offer(value, sequence: sequence)
                case .failure(let error): channel?.fail(error)
                }
            })
        channel.attach(token)
        listenerRegistry.track(channel)
        return ObservedValues(channel: channel)
    }
}
