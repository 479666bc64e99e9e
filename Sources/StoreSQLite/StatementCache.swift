/// The compiled statements of one connection, by SQL text.
///
/// Statements are finalized when they leave the cache or when the cache is emptied.
/// The cache is bounded: when it holds `capacity` statements and a new one arrives, it is emptied
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

    /// The number of statements held.
    var count: Int { statements.count }

    /// Finalizes and drops every statement.
    mutating func removeAll() {
        recent.removeAll()
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
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
