import Foundation
import ObservableStoreCore

extension Store {
    /// The records `query` selects, as an `AsyncSequence` kept current: the current records first, then the
    /// records again after each commit that changes them (see ``/ObservableStoreCore/ObservedValues``).
    /// Each element carries the commit sequence it reflects. Records are compared with `==`.
    ///
    /// A read that fails ends the sequence with its error; this throws when the store cannot be read at all
    /// (closed).
    public func values<R: Record & Equatable>(of query: Query<R>) throws -> ObservedValues<[R]> {
        try observeQuery(query, isSame: ==)
    }

    /// The same for a record type that is not `Equatable`: its records are compared by the values of their
    /// columns.
    public func values<R: Record>(of query: Query<R>) throws -> ObservedValues<[R]> {
        try observeQuery(query, isSame: RowEncoder.sameRecords)
    }

    /// The record of `type` whose primary key is `key` (nil while there is none), as an `AsyncSequence` kept
    /// current: a new element after each commit that inserts, changes or deletes it.
    public func value<R: Record>(of type: R.Type, key: R.Key) throws -> ObservedValues<R?> {
        let keyValue = key.databaseValue
        return try observe(
            filter: ChangeFilter(tables: [R.tableName], keys: [keyValue]),
            fetch: { tx in try tx.fetch(R.self, key: key) },
            apply: { commit in
                guard !commit.schemaChanged else { return .refetch }
                guard let change = commit.changes.last(where: { $0.key == [keyValue] }) else { return .skip }
                return .deliver(try change.new.map { try $0.decode(R.self) })
            },
            isSame: RowEncoder.sameRecord)
    }

    /// `query` observed through `state` (tests pass theirs to count its reads).
    func observeQuery<R: Record>(
        _ query: Query<R>, state: ObservedQueryState<R>? = nil, isSame: @escaping @Sendable ([R], [R]) -> Bool
    ) throws -> ObservedValues<[R]> {
        let state = state ?? ObservedQueryState(query)
        return try observe(
            filter: .table(R.tableName), fetch: { tx in try state.read(in: tx) }, apply: { commit in state.step(for: commit) },
            isSame: isSame)
    }

    /// Binds a stream listener (no name) to the value `fetch` reads, through a channel that keeps the latest
    /// value: the core's bind-and-fire (``/ObservableStoreCore/ObservedValues``).
    private func observe<Value: Sendable>(
        filter: ChangeFilter, fetch: @escaping @Sendable (Transaction) throws -> Value,
        apply: @escaping @Sendable (Commit) throws -> ValueBinding.Step<Value>,
        isSame: @escaping @Sendable (Value, Value) -> Bool
    ) throws -> ObservedValues<Value> {
        let channel = LatestValueChannel<Value>(isSame: isSame)
        // A read that fails ends the sequence with its error, instead of going to the listener error handler.
        // The listener keeps the default buffer: a burst of commits is judged one by one (most are skipped or
        // applied without reading); only an overflow makes it read again. The channel coalesces the values.
        let token = try ValueBinding.bind(
            "values-\(UUID().uuidString)", filter: filter, options: ListenerOptions(), isStream: true,
            engine: self, registry: registry,
            fetch: { tx in Result { try fetch(tx) } },
            apply: { commit in
                do {
                    switch try apply(commit) {
                    case .skip: return .skip
                    case .refetch: return .refetch
                    case .deliver(let value): return .deliver(.success(value))
                    }
                } catch {
                    return .deliver(.failure(error))  // a changed row that does not decode ends the sequence too
                }
            },
            deliver: { [weak channel] result, sequence in
                switch result {
                case .success(let value): channel?.offer(value, sequence: sequence)
                case .failure(let error): channel?.fail(error)
                }
            })
        channel.attach(token)
        registry.track(channel)
        return ObservedValues(channel: channel)
    }
}
