#if PostgreSQL
import Foundation
import ObservableStoreCore

extension PostgresStore {
    /// The records `query` selects, as an `AsyncSequence` kept current: the current records first, then the records
    /// again after each commit that changes `R`'s table and them (see ``/ObservableStoreCore/ObservedValues``).
    /// Each element carries the commit sequence it reflects. Records are compared with `==`.
    ///
    /// Unlike the SQLite engine, which evaluates most commits against the held result, every commit to the table
    /// reads the query again (one snapshot read; values coalesce under a burst).
    public func values<R: Record & Equatable>(of query: Query<R>) throws -> ObservedValues<[R]> {
        try observe(filter: .table(R.tableName), fetch: { tx in try tx.fetchAll(query) }, apply: { _ in .refetch }, isSame: ==)
    }

    /// The same for a record type that is not `Equatable`: its records are compared by the values of their columns.
    public func values<R: Record>(of query: Query<R>) throws -> ObservedValues<[R]> {
        try observe(
            filter: .table(R.tableName), fetch: { tx in try tx.fetchAll(query) }, apply: { _ in .refetch },
            isSame: RowEncoder.sameRecords)
    }

    /// The record of `type` whose primary key is `key` (nil while there is none), as an `AsyncSequence` kept
    /// current: a new element after each commit that inserts, changes or deletes it.
    public func value<R: Record>(of type: R.Type, key: R.Key) throws -> ObservedValues<R?> {
        let keyValue = key.databaseValue
        return try observe(
            filter: ChangeFilter(tables: [R.tableName], keys: [keyValue]), fetch: { tx in try tx.fetch(R.self, key: key) },
            apply: { commit in try PostgresStore.step(for: commit, key: keyValue, R.self) },
            isSame: RowEncoder.sameRecord)
    }

    /// Binds a stream listener (no name) to the value `fetch` reads, through a channel that keeps the latest value.
    private func observe<Value: Sendable>(
        filter: ChangeFilter, fetch: @escaping @Sendable (PostgresTransaction) throws -> Value,
        apply: @escaping @Sendable (Commit) throws -> ValueBinding.Step<Value>,
        isSame: @escaping @Sendable (Value, Value) -> Bool
    ) throws -> ObservedValues<Value> {
        let channel = LatestValueChannel<Value>(isSame: isSame)
        // A read that fails ends the sequence with its error, instead of going to the listener error handler.
        let token = try ValueBinding.bind(
            "values-\(UUID().uuidString)", filter: filter, options: ListenerOptions(), isStream: true, engine: self,
            registry: registry, fetch: { tx in Result { try fetch(tx) } },
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
        registry.track(channel)
        return ObservedValues(channel: channel)
    }
}
#endif
