import ObservableStoreCore
/// Names a statement by what it does (e.g. "fetch a `NodeVO` by key") instead of by its SQL text: the
/// caller builds the text only the first time, and later lookups neither build nor hash it.
package struct StatementName: Equatable, Sendable {
    let type: ObjectIdentifier
    let purpose: String

    /// The statement that does `purpose` for `type`.
    package init(_ type: Any.Type, _ purpose: String) {
        self.type = ObjectIdentifier(type)
        self.purpose = purpose
    }
}

/// The compiled statements of one connection, by SQL text, and a few by ``StatementName``.
///
/// Statements are finalized when they leave the cache or when the cache is emptied.
/// The cache is bounded: when it holds `capacity` statements by text and a new text arrives, it is emptied
/// first (rare in practice; it keeps one-off SQL from piling up).
struct StatementCache {
    private var statements: [String: Statement] = [:]
    let capacity: Int
    /// The statements found last, checked before the dictionary. A write uses the same few statements
    /// over and over (BEGIN, an INSERT, the log row, COMMIT), and their texts are usually the very same
    /// strings: comparing them costs less than hashing them for every lookup.
    private var recent: [(sql: String, statement: Statement)] = []
    private var nextRecent = 0
    private static let recentCount = 8
    /// The statements found by name: one per record type and purpose, so few, searched in order.
    private var named: [(name: StatementName, statement: Statement)] = []

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    subscript(sql: String) -> Statement? {
        mutating get {
            let length = sql.utf8.count
            for entry in recent where entry.sql.utf8.count == length && entry.sql == sql {
                return entry.statement
            }
            guard let statement = statements[sql] else { return nil }
            remember(sql, statement)
            return statement
        }
        set {
            if newValue != nil, statements[sql] == nil, statements.count >= capacity { removeAll() }
            statements[sql]?.finalize()
            recent.removeAll { $0.sql == sql }
            statements[sql] = newValue
        }
    }

    /// The statement named `name`. Setting one finalizes the statement it replaces.
    subscript(name: StatementName) -> Statement? {
        get { named.first { $0.name == name }?.statement }
        set {
            if let index = named.firstIndex(where: { $0.name == name }) {
                named[index].statement.finalize()
                named.remove(at: index)
            }
            if let newValue { named.append((name, newValue)) }
        }
    }

    /// The number of statements held.
    var count: Int { statements.count + named.count }

    /// Finalizes and drops every statement.
    mutating func removeAll() {
        recent.removeAll()
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        for entry in named { entry.statement.finalize() }
        named.removeAll()
    }

    private mutating func remember(_ sql: String, _ statement: Statement) {
        if recent.count < StatementCache.recentCount {
            recent.append((sql, statement))
        } else {
            recent[nextRecent] = (sql, statement)
            nextRecent = (nextRecent + 1) % StatementCache.recentCount
        }
    }
}
