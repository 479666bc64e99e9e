
/// Listeners indexed by the tables and primary-key values their filters name, so that a commit finds the
/// listeners it may match without looking at the others.
///
/// ``listeners(for:)`` returns a superset of the listeners whose filter lets the commit through (each one
/// once); every listener still applies its whole filter (columns, origins) to what it is offered, so the
/// index selects exactly what a scan of every listener would. A schema change goes to every listener, as
/// ``ChangeFilter/apply(_:)`` lets it through whatever the filter.
///
/// A value type: the registry copies it under its lock (no element is copied until the next change to the
/// index), and the publisher matches a commit against the copy off the lock, possibly later, on its queue.
package struct ListenerIndex {
    /// Every listener of the index.
    private(set) var all = ListenerSet()
    /// Listeners with no table condition: offered every commit.
    private var everyTable = ListenerSet()
    /// Listeners with a table condition, by table.
    private var tables: [String: TableListeners] = [:]

    /// The listeners of one table: those that want every row, and those filtered by key, by key.
    private struct TableListeners {
        var everyKey = ListenerSet()
        var byKey: [DatabaseValue: ListenerSet] = [:]
        var isEmpty: Bool { everyKey.isEmpty && byKey.isEmpty }
    }

    /// Whether the index holds no listener.
    package var isEmpty: Bool { all.isEmpty }

    /// How many listeners are offered every commit whatever its tables (no table condition).
    package var unfilteredCount: Int { everyTable.count }

    /// Adds `listener`, under each table and key of its filter. Costs in proportion to those.
    package mutating func insert(_ listener: Listener) {
        all.insert(listener)
        guard let tableNames = listener.filter.tables else { return everyTable.insert(listener) }
        for table in tableNames {
            if let keys = listener.filter.keys {
                for key in keys { tables[table, default: TableListeners()].byKey[key, default: ListenerSet()].insert(listener) }
            } else {
                tables[table, default: TableListeners()].everyKey.insert(listener)
            }
        }
    }

    /// Removes `listener` from wherever ``insert(_:)`` put it.
    package mutating func remove(_ listener: Listener) {
        guard all.remove(listener) else { return }
        guard let tableNames = listener.filter.tables else { return _ = everyTable.remove(listener) }
        for table in tableNames {
            if let keys = listener.filter.keys {
                for key in keys {
                    _ = tables[table]?.byKey[key]?.remove(listener)
                    if tables[table]?.byKey[key]?.isEmpty == true { tables[table]?.byKey[key] = nil }
                }
            } else {
                _ = tables[table]?.everyKey.remove(listener)
            }
            if tables[table]?.isEmpty == true { tables[table] = nil }
        }
    }

    /// The listeners `commit` may match, each once; every listener when the commit could not be decoded
    /// (each then gets a `.resync(.missedCommits)`).
    package func listeners(for commit: Result<Commit, any Error>) -> [Listener] {
        guard case .success(let commit) = commit else { return all.listeners }
        return listeners(for: commit)
    }

    /// The listeners `commit` may match, each once: those without a table condition, those of each table
    /// it changes that want every row, and those of each changed row's key; every listener for a schema change.
    package func listeners(for commit: Commit) -> [Listener] {
        if commit.schemaChanged || tables.isEmpty { return commit.schemaChanged ? all.listeners : everyTable.listeners }
        var parts: [[Listener]] = everyTable.isEmpty ? [] : [everyTable.listeners]
        var seenTables: Set<String> = []
        var current: (table: String, listeners: TableListeners?)?
        var lastKey: DatabaseValue?
        for change in commit.changes {
            if current?.table != change.table {
                let listeners = tables[change.table]
                current = (change.table, listeners)
                lastKey = nil
                if let listeners, !listeners.everyKey.isEmpty, seenTables.insert(change.table).inserted {
                    parts.append(listeners.everyKey.listeners)
                }
            }
            guard let byKey = current?.listeners?.byKey, !byKey.isEmpty, change.key.count == 1, change.key[0] != lastKey else {
                continue
            }
            lastKey = change.key[0]
            if let keyed = byKey[change.key[0]] { parts.append(keyed.listeners) }
        }
        if parts.count <= 1 { return parts.first ?? [] }
        // Several tables or keys: a listener may sit under more than one of them.
        var seen: Set<ObjectIdentifier> = []
        return parts.joined().filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
