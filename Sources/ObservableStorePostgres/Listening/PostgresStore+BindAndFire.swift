#if PostgreSQL
import Foundation
import ObservableStoreCore

extension PostgresStore {
    /// Bind and fire: calls `handler` at once with the record whose primary key is `key` (nil if there is none),
    /// then again after every commit that inserts, changes or deletes it — by any writer, on any host.
    ///
    /// The first value and the commit sequence it reflects are read in one REPEATABLE READ snapshot, so no later
    /// commit is missed and none is applied twice. The first call happens before this returns, on the calling
    /// thread; later ones on the listener's delivery thread. Same naming and lifetime rules as
    /// ``listen(_:filter:options:handler:)``.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = try store.bindAndFire("detail-view", NodeVO.self, key: 7) { node in
    ///     print(node?.name ?? "deleted")
    /// }
    /// ```
    public func bindAndFire<R: Record>(
        _ name: String, _ type: R.Type, key: R.Key, options: ListenerOptions = ListenerOptions(),
        handler: @escaping @Sendable (R?) -> Void
    ) throws -> ListenerToken {
        let keyValue = key.databaseValue
        return try ValueBinding.bind(
            name, filter: ChangeFilter(tables: [R.tableName], keys: [keyValue]), options: options, engine: self,
            registry: registry, fetch: { tx in try tx.fetch(R.self, key: key) },
            apply: { commit in try PostgresStore.step(for: commit, key: keyValue, R.self) },
            deliver: { value, _ in handler(value) })
    }

    /// Bind and fire on one property of one record: calls `handler` at once with the value at `keyPath` (nil when
    /// the record does not exist), then each time a commit changes that value.
    public func bindAndFire<R: Record, Value: Equatable & Sendable>(
        _ name: String, _ type: R.Type, key: R.Key, _ keyPath: any KeyPath<R, Value> & Sendable,
        options: ListenerOptions = ListenerOptions(), handler: @escaping @Sendable (Value?) -> Void
    ) throws -> ListenerToken {
        let last = LockedValue<Value??>(.none)
        return try bindAndFire(name, type, key: key, options: options) { record in
            let value = record?[keyPath: keyPath]
            if last.exchange(.some(value)) != .some(value) { handler(value) }
        }
    }

    /// Bind and fire on a query: calls `handler` at once with the query's records, then after every commit that
    /// changes `R`'s table, with the records fetched again (values coalesce).
    public func bindAndFire<R: Record>(
        _ name: String, query: Query<R>, options: ListenerOptions = ListenerOptions(),
        handler: @escaping @Sendable ([R]) -> Void
    ) throws -> ListenerToken {
        try ValueBinding.bind(
            name, filter: .table(R.tableName), options: options, engine: self, registry: registry,
            fetch: { tx in try tx.fetchAll(query) }, apply: { _ in .refetch }, deliver: { value, _ in handler(value) })
    }

    /// What commit `commit` does to the record of `R` whose key is `key`: its last change gives the new value; a
    /// schema change reads it again.
    static func step<R: Record>(for commit: Commit, key: DatabaseValue, _ type: R.Type) throws -> ValueBinding.Step<R?> {
        guard !commit.schemaChanged else { return .refetch }
        guard let change = commit.changes.last(where: { $0.key == [key] }) else { return .skip }
        return .deliver(try change.new.map { try $0.decode(R.self) })
    }
}
#endif
