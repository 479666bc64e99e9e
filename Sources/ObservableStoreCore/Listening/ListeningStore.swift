import Foundation

/// A store whose commits reach named listeners: `SQLiteStore` (SQLite) and `PostgresStore` conform, and the listening API
/// (``listen(_:filter:options:handler:)``, ``removeListener(_:)``, ``listenerNames``, ``changes(filter:bufferSize:)``)
/// is written once, here, for both. Code that only listens can take `some ListeningStore` and work on either engine.
///
/// ```swift
/// func logCommits(of store: some ListeningStore) -> ListenerToken {
///     store.listen("log", filter: .table("nodes")) { event in print(event) }
/// }
/// ```
public protocol ListeningStore: AnyObject, Sendable {
    /// The store's listeners: the handle the protocol's methods work through (its members are the library's own).
    var listenerRegistry: ListenerRegistry { get }
}

extension ListeningStore {
    /// Registers a listener under `name`: `handler` receives every commit with a change matching
    /// `filter`, once, in sequence order, after the commit.
    ///
    /// Registering a name again replaces the old listener atomically: when the call returns, the old
    /// handler is not running and never runs again. The listener lives until the returned token is
    /// cancelled or released, ``removeListener(_:)`` is called, or the name is registered again.
    /// A handler that throws loses only that event: the error is logged at warning level and handed to
    /// the store configuration's `listenerErrorHandler`. A slow handler delays no one:
    /// past ``ListenerOptions/bufferSize`` waiting commits it receives one `.resync(.missedCommits)` event instead.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = store.listen("list-view", filter: .table("nodes")) { event in
    ///     if case .commit(let commit) = event { print(commit.sequence, commit.changes.map(\.operation)) }
    /// }
    /// ```
    public func listen(
        _ name: String, filter: ChangeFilter = .all, options: ListenerOptions = ListenerOptions(),
        handler: @escaping @Sendable (StoreEvent) throws -> Void
    ) -> ListenerToken {
        register(
            makeListener(name, filter: filter, options: options) { event in
                try handler(event)
                return true
            })
    }

    /// Registers a typed listener for the records of `R`'s table; see ``listen(_:filter:options:handler:)``.
    ///
    /// `filter` is combined with `R`'s table: with no ``ChangeFilter/tables`` (or with tables that include
    /// `R`'s) the listener receives the changes to `R`'s table that match the rest of `filter`. A filter
    /// whose tables leave `R`'s table out is refused: nothing is registered (a listener already registered
    /// under `name` is left alone), the returned token is already cancelled (``ListenerToken/isCancelled``),
    /// and a ``StoreError/Code/invalidInput`` error naming both is logged at error level and handed to
    /// the store configuration's `listenerErrorHandler`.
    ///
    /// A changed row that does not decode as `R` reaches the handler as ``RecordEvent/decodingFailed(_:)``,
    /// whose error names the table, the column and the commit's sequence; that error is also logged at
    /// error level and handed to the store configuration's `listenerErrorHandler`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = store.listen("detail-view", to: NodeVO.self) { event in
    ///     if case .commit(let commit) = event {
    ///         for change in commit.changes { print(change.operation, change.new?.name ?? "deleted") }
    ///     }
    /// }
    /// ```
    public func listen<R: Record>(
        _ name: String, to type: R.Type, filter: ChangeFilter = .all, options: ListenerOptions = ListenerOptions(),
        handler: @escaping @Sendable (RecordEvent<R>) throws -> Void
    ) -> ListenerToken {
        var filter = filter
        if let tables = filter.tables, !tables.contains(R.tableName) {
            let error = StoreError(
                .invalidInput,
                "listener \(name): the filter's tables (\(tables.sorted().joined(separator: ", "))) leave out "
                    + "\(R.self)'s table \(R.tableName); nothing was registered")
            listenerRegistry.report(error, listener: name)
            let refused = makeListener(name, filter: filter, options: options) { _ in false }
            refused.cancel()
            return ListenerToken(listener: refused, registry: listenerRegistry, cancelsOnRelease: false)
        }
        filter.tables = [R.tableName]
        let registry = listenerRegistry
        return listen(name, filter: filter, options: options) { event in
            let typed = RecordEvent<R>(event)
            if case .decodingFailed(let error) = typed { registry.report(error, listener: name) }
            try handler(typed)
        }
    }

    /// Registers a listener that lives as long as `owner`: the store holds `owner` weakly, and once it is
    /// gone the listener removes itself (at its next event).
    ///
    /// The owner, not the token, controls the lifetime: the returned token may be discarded, and releasing
    /// it does not remove the listener. Use it (or ``removeListener(_:)``) to remove the listener early;
    /// ``ListenerToken/isCancelled`` tells whether it is gone.
    ///
    /// For example:
    ///
    /// ```swift
    /// store.listen("first-view", owner: view, filter: .table("user_info")) { view, event in view.refresh() }
    /// ```
    @discardableResult
    public func listen<Owner: AnyObject & Sendable>(
        _ name: String, owner: Owner, filter: ChangeFilter = .all, options: ListenerOptions = ListenerOptions(),
        handler: @escaping @Sendable (Owner, StoreEvent) throws -> Void
    ) -> ListenerToken {
        let weakOwner = WeakReference(owner)
        return register(
            makeListener(name, filter: filter, options: options) { event in
                guard let owner = weakOwner.object else { return false }
                try handler(owner, event)
                return true
            }, detached: true)
    }

    /// Removes the listener called `name`; returns whether there was one. When this returns, its
    /// handler is not running (unless this is called from it) and never runs again.
    @discardableResult
    public func removeListener(_ name: String) -> Bool {
        listenerRegistry.remove(name: name)
    }

    /// The names of the registered listeners, sorted. ``changes(filter:bufferSize:)`` streams have no
    /// name and are not listed.
    public var listenerNames: [String] { listenerRegistry.names }

    /// How many listeners without a name are registered: ``changes(filter:bufferSize:)`` streams, observed values
    /// (`values(of:)`, `value(of:key:)`, `observe(tracking:)`) and the live models each hold one until their iteration
    /// ends or the store closes. A count that only grows while a service runs is a leak: sequences made and never
    /// iterated to their end, nor cancelled, nor released.
    public var unnamedListenerCount: Int { listenerRegistry.streamCount }

    /// The commits matching `filter`, as an `AsyncSequence`. See ``StoreEvents``.
    ///
    /// The stream is registered from this call on (no commit after it is missed), without a name: it is
    /// not in ``listenerNames`` and cannot be replaced or removed by name. It is removed when its
    /// iteration ends (the loop exits, the iterating task is cancelled, the store closes) or when the
    /// sequence and its iterator are both released.
    public func changes(filter: ChangeFilter = .all, bufferSize: Int = 1024) -> StoreEvents {
        let channel = EventChannel(capacity: bufferSize)
        // The channel bounds the backlog; the listener only hands events over.
        let listener = makeListener(
            "changes-\(UUID().uuidString)", filter: filter, options: ListenerOptions(bufferSize: .max), isStream: true
        ) { [weak channel] event in
            channel?.push(event)
            return true
        }
        channel.attach(register(listener))
        listenerRegistry.track(channel)
        return StoreEvents(channel: channel)
    }

    /// A listener of this store's registry, not yet registered.
    package func makeListener(
        _ name: String, filter: ChangeFilter, options: ListenerOptions, held: Bool = false, isStream: Bool = false,
        handler: @escaping @Sendable (StoreEvent) throws -> Bool
    ) -> Listener {
        listenerRegistry.makeListener(name, filter: filter, options: options, held: held, isStream: isStream, handler: handler)
    }

    /// Registers `listener`; a `detached` token does not cancel it when released.
    package func register(_ listener: Listener, detached: Bool = false) -> ListenerToken {
        listenerRegistry.register(listener, detached: detached)
    }
}
