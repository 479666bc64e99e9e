import Foundation
import ObservableStoreCore
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
            apply: { commit in
                guard !commit.schemaChanged else { return .refetch }
                guard let change = commit.changes.last(where: { $0.key == [keyValue] }) else { return .skip }
                return .deliver(try change.new.map { try $0.decode(R.self) })
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
            apply: { _ in .refetch }, deliver: handler)
    }

    /// What a bound value does with one commit.
    private enum BindStep<Value> {
        /// The commit does not change the value.
        case skip
        /// The commit gives this new value.
        case deliver(Value)
        /// The value must be read again.
        case refetch
    }

    /// Registers a held listener, reads the first value and the last commit sequence in one read
    /// transaction, delivers the value, then releases the listener past that sequence.
    ///
    /// Every later value carries the sequence it reflects (the commit's, or the one read with a
    /// refetch after a gap, an external change or a schema change), and commits at or below it are
    /// skipped: values never go back in time and none is delivered twice.
    private func bind<Value: Sendable>(
        _ name: String, filter: ChangeFilter, options: ListenerOptions,
        fetch: @escaping @Sendable (Transaction) throws -> Value,
        apply: @escaping @Sendable (Commit) throws -> BindStep<Value>,
        deliver: @escaping @Sendable (Value) -> Void
    ) throws -> ListenerToken {
        let store = WeakReference(self)
        let reflected = LockedValue<Int64>(0)
        let listener = makeListener(name, filter: filter, options: options, held: true) { event in
            guard let store = store.object else { return false }
            var step = BindStep<Value>.refetch
            if case .commit(let commit) = event {
                guard commit.sequence > reflected.value else { return true }
                step = try apply(commit)
                if case .deliver = step { reflected.value = commit.sequence }
            }
            switch step {
            case .skip: break
            case .deliver(let value): deliver(value)
            case .refetch:
                let (value, sequence) = try store.read { tx in (try fetch(tx), try ChangeLog.lastSequence(tx)) }
                reflected.value = sequence
                deliver(value)
            }
            return true
        }
        let token = register(listener)
        let (value, sequence) = try read { tx in (try fetch(tx), try ChangeLog.lastSequence(tx)) }
        reflected.value = sequence
        listener.release(after: sequence) { deliver(value) }
        return token
    }
}

/// A value guarded by a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only read and written under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { self.stored = value }

    /// The current value.
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Stores `newValue` and returns the previous value.
    func exchange(_ newValue: Value) -> Value {
        lock.withLock {
            defer { stored = newValue }
            return stored
        }
    }
}
