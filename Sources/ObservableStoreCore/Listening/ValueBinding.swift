/// Bind-and-fire: a value read at once, then kept current by a listener.
///
/// The listener is registered *held* before the first read, so no commit can fall between the read and
/// the listener: commits that read reflects (its ``SnapshotPosition``) are dropped, the rest are delivered. Each
/// commit either updates the value from its changes (``Step/deliver(_:)``), is not about it
/// (``Step/skip``), or makes the value read again (``Step/refetch``); gaps, external changes and commits
/// logged in pieces (``Commit/piece``) always read again.
package enum ValueBinding {
    /// What a commit does to the bound value.
    package enum Step<Value> {
        /// Nothing: the commit does not change the value.
        case skip
        /// The commit's changes give the new value.
        case deliver(Value)
        /// Read the value again.
        case refetch
    }

    /// Binds listener `name` of `registry` to the value `fetch` reads from `engine`'s snapshots: calls
    /// `deliver` with it and the commit sequence it reflects now, then as `apply` says after each commit
    /// matching `filter`. A stream's listener (`isStream`) has no name in the registry.
    package static func bind<Engine: StoreEngine, Value: Sendable>(
        _ name: String, filter: ChangeFilter, options: ListenerOptions, isStream: Bool = false, engine: Engine,
        registry: ListenerRegistry,
        fetch: @escaping @Sendable (Engine.Snapshot) throws -> Value,
        apply: @escaping @Sendable (Commit) throws -> Step<Value>,
        deliver: @escaping @Sendable (Value, Int64) -> Void
    ) throws -> ListenerToken {
        let weakEngine = WeakReference(engine)
        let reflected = LockedValue(SnapshotPosition(sequence: 0))
        let listener = registry.makeListener(name, filter: filter, options: options, held: true, isStream: isStream) { event in
            guard let engine = weakEngine.object else { return false }
            var step = Step<Value>.refetch
            if case .commit(let commit) = event {
                guard !reflected.value.includes(commit.sequence) else { return true }
                // A commit in pieces is never applied piece by piece: its first piece here makes the value read
                // again (the store already holds the whole commit), and the read's sequence skips the others.
                step = commit.piece.count > 1 ? .refetch : try apply(commit)
                if case .deliver = step { reflected.value = reflected.value.advanced(to: commit.sequence) }
            }
            switch step {
            case .skip: break
            case .deliver(let value): deliver(value, reflected.value.sequence)
            case .refetch:
                let (value, position) = try engine.readSnapshot(fetch)
                reflected.value = position
                deliver(value, position.sequence)
            }
            return true
        }
        let token = registry.register(listener)
        let (value, position) = try engine.readSnapshot(fetch)
        reflected.value = position
        listener.release(after: position.sequence) { deliver(value, position.sequence) }
        return token
    }

    /// What `commit` does to the record of `R` whose primary key is `key`: its last change gives the new value
    /// (nil once deleted), a commit without one leaves it alone, a schema change reads it again.
    package static func recordStep<R: Record>(for commit: Commit, key: DatabaseValue, _ type: R.Type) throws -> Step<R?> {
        guard !commit.schemaChanged else { return .refetch }
        guard let change = commit.changes.last(where: { $0.key == [key] }) else { return .skip }
        return .deliver(try change.new.map { try $0.decode(R.self) })
    }
}
