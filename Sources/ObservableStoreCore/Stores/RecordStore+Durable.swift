extension RecordStore {
    /// Registers a durable listener: its cursor is kept in the store, so after a crash or a restart, registering the
    /// same name again replays every commit it has not acknowledged, then goes on live — commits of every writer, in
    /// sequence order.
    ///
    /// A commit is acknowledged when the handler returns (at-least-once: a crash in the handler redelivers it), or
    /// inside the handler's own write with the engine's `acknowledge(in:)` on ``DurableCommit`` (exactly-once
    /// effects). A handler that throws leaves the commit unacknowledged; it is delivered again at the next commit or
    /// restart. If the change log no longer holds commits after the cursor (retention), the listener gets
    /// `.resync(.cursorExpired(missed:))` and must read its data again.
    ///
    /// The same name again replaces the listener in this process, as for
    /// ``ListeningStore/listen(_:filter:options:handler:)``. On PostgreSQL one consumer holds a name across all
    /// processes and hosts (a session advisory lock): another one stands by, retrying every 250 ms up to
    /// `PostgresStoreConfiguration.durableListenerClaimTimeout`, and takes over when that session ends.
    ///
    /// For example:
    ///
    /// ```swift
    /// let token = try store.listenDurably("mailer", filter: .table("user_info")) { event in
    ///     if case .commit(let delivery) = event { try mailer.send(for: delivery.commit) }
    /// }
    /// ```
    public func listenDurably(
        _ name: String, filter: ChangeFilter = .all, startingAt start: DurableStart = .now,
        handler: @escaping @Sendable (DurableEvent) throws -> Void
    ) throws -> ListenerToken {
        let engine = engineHandle.engine
        guard engine.tracksChanges else {
            throw StoreError(.invalidInput, "durable listeners need change tracking (the store's configuration: tracksChanges)")
        }
        let consumer = try engine.durableConsumer(name, filter: filter, startingAt: start, handler: handler)
        // A one-slot wake-up listener: events only make the consumer read; it reads the log itself.
        let wakeUp = makeListener(name, filter: .all, options: ListenerOptions(bufferSize: 1)) { _ in
            consumer.wake()
            return true
        }
        wakeUp.onCancel = { consumer.stop() }
        let token = register(wakeUp)
        consumer.begin()
        return token
    }

    /// Every durable listener's cursor and lag, by name.
    public func durableListeners() throws -> [DurableListenerInfo] {
        try engineHandle.engine.durableListenerInfos()
    }

    /// Moves durable listener `name`'s cursor to `sequence` (back to replay, forward to skip). Throws
    /// ``StoreError/Code/notFound`` when there is no such listener. Takes effect at its next registration (or, on
    /// PostgreSQL, takeover).
    public func resetDurableListener(_ name: String, to sequence: Int64) throws {
        guard try engineHandle.engine.moveDurableCursor(of: name, to: sequence) else {
            throw StoreError(.notFound, "no durable listener named \(name)")
        }
    }

    /// Deletes durable listener `name` and its cursor (it no longer holds back log pruning). Returns whether it
    /// existed.
    @discardableResult
    public func deleteDurableListener(_ name: String) throws -> Bool {
        removeListener(name)
        return try engineHandle.engine.deleteDurableCursor(of: name)
    }
}
