import Foundation
import StoreSQLite

extension Store {
    /// Bind and fire: calls `handler` at once with the record whose primary key is `key` (nil if there
    /// is none), then again after every commit that inserts, changes or deletes it.
    ///
    /// The first value and the commit sequence it reflects are read in one read transaction, so no
    /// later commit is missed and none is applied twice. The first call happens before this returns,
    /// on the calling thread; later ones on the listener's delivery thread. Same naming and lifetime
    /// rules as ``listen(_:filter:options:handler:)``.
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
            next: { event, store in
                if case .commit(let commit) = event, !commit.schemaChanged {
                    guard let change = commit.changes.last(where: { $0.key == [keyValue] }) else { return nil }
                    return .some(try change.new.map { try $0.decode(R.self) })
                }
                return .some(try store.read { try $0.fetch(R.self, key: key) })
            }, deliver: handler)
    }

    /// Bind and fire on one property of one record: calls `handler` at once with the value at
    /// `keyPath` (nil when the record does not exist), then each time a commit changes that value.
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

    /// Bind and fire on a query: calls `handler` at once with the query's records, then after every
    /// commit that changes `R`'s table, with the records fetched again.
    ///
    /// A refetch reflects that commit and possibly later ones (values coalesce; use
    /// ``listen(_:filter:options:handler:)`` for every individual change).
    public func bindAndFire<R: Record>(
        _ name: String, query: Query<R>, options: ListenerOptions = ListenerOptions(),
        handler: @escaping @Sendable ([R]) -> Void
    ) throws -> ListenerToken {
        try bind(
            name, filter: .table(R.tableName), options: options, fetch: { tx in try tx.fetchAll(query) },
            next: { _, store in try store.read { try $0.fetchAll(query) } }, deliver: handler)
    }

    /// Registers a held listener, reads the first value and the last commit sequence in one read
    /// transaction, delivers the value, then releases the listener past that sequence.
    private func bind<Value: Sendable>(
        _ name: String, filter: ChangeFilter, options: ListenerOptions,
        fetch: @escaping @Sendable (Transaction) throws -> Value,
        next: @escaping @Sendable (StoreEvent, Store) throws -> Value?,
        deliver: @escaping @Sendable (Value) -> Void
    ) throws -> ListenerToken {
        let store = WeakReference(self)
        let listener = Listener(name: name, filter: filter, options: options, held: true, logger: configuration.logger) {
            event in
            guard let store = store.object else { return false }
            if let value = try next(event, store) { deliver(value) }
            return true
        }
        let token = register(listener)
        let (value, sequence) = try read { tx in (try fetch(tx), try ChangeLog.lastSequence(tx)) }
        listener.release(after: sequence) { deliver(value) }
        return token
    }
}

/// A value guarded by a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only read and written under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Stores `newValue` and returns the previous value.
    func exchange(_ newValue: Value) -> Value {
        lock.withLock {
            defer { value = newValue }
            return value
        }
    }
}
