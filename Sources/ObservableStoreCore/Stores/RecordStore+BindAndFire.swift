import Foundation

extension RecordStore {
    /// Bind and fire: calls `handler` at once with the record whose primary key is `key` (nil if there is none),
    /// then again after every commit that inserts, changes or deletes it — by any writer.
    ///
    /// The first value and the commit sequence it reflects are read in one snapshot, so no later commit is missed
    /// and none is applied twice. The first call happens before this returns, on the calling thread; later ones on
    /// the listener's delivery thread. Same naming and lifetime rules as ``ListeningStore/listen(_:filter:options:handler:)``.
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
        return try bind(
            name, filter: ChangeFilter(tables: [R.tableName], keys: [keyValue]), options: options,
            fetch: { tx in try tx.fetch(R.self, key: key) },
            apply: { commit in try ValueBinding.recordStep(for: commit, key: keyValue, R.self) },
            deliver: { value, _ in handler(value) })
    }

    /// Bind and fire on one property of one record: calls `handler` at once with the value at `keyPath` (nil when
    /// the record does not exist), then each time a commit changes that value.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = try store.bindAndFire("first-view.name", UserInfo.self, key: "me", \.name) { name in
    ///     label.text = name ?? ""
    /// }
    /// ```
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

    /// Bind and fire on a query: calls `handler` at once with the query's records, then after each commit that
    /// changes them, with the records as that commit left them.
    ///
    /// It follows the query as `values(of:)` does, at the same cost, on both engines: most commits to `R`'s table are
    /// applied to the records held (a commit that leaves them as they were calls nothing), and the query is read again
    /// only when a commit cannot be applied. Use ``ListeningStore/listen(_:filter:options:handler:)`` for every
    /// individual change.
    public func bindAndFire<R: Record>(
        _ name: String, query: RecordQuery<R>, options: ListenerOptions = ListenerOptions(),
        handler: @escaping @Sendable ([R]) -> Void
    ) throws -> ListenerToken {
        let observation = engineHandle.engine.observation(of: query)
        return try bind(
            name, filter: .table(R.tableName), options: options, fetch: observation.fetch, apply: observation.apply,
            deliver: { value, _ in handler(value) })
    }

    /// Binds listener `name` to the value `fetch` reads from the store's snapshots (see ``ValueBinding``): `deliver`
    /// gets each value with the commit sequence it reflects; commits at or below it are skipped, so values never go
    /// back in time and none is delivered twice. A stream's listener (`isStream`) has no name in the registry.
    package func bind<Value: Sendable>(
        _ name: String, filter: ChangeFilter, options: ListenerOptions, isStream: Bool = false,
        fetch: @escaping @Sendable (Transaction) throws -> Value,
        apply: @escaping @Sendable (Commit) throws -> ValueBinding.Step<Value>,
        deliver: @escaping @Sendable (Value, Int64) -> Void
    ) throws -> ListenerToken {
        try ValueBinding.bind(
            name, filter: filter, options: options, isStream: isStream, engine: engineHandle.engine,
            registry: listenerRegistry, fetch: fetch, apply: apply, deliver: deliver)
    }
}
