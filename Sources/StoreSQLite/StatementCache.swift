/// The compiled statements of one connection, by SQL text.
///
/// Statements are finalized when they leave the cache or when the cache is emptied.
/// The cache is bounded: when it holds `capacity` statements and a new one arrives, it is emptied
/// first (rare in practice; it keeps one-off SQL from piling up).
struct StatementCache {
    private var statements: [String: Statement] = [:]
    let capacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    subscript(sql: String) -> Statement? {
        get { statements[sql] }
        set {
            if newValue != nil, statements[sql] == nil, statements.count >= capacity { removeAll() }
            statements[sql]?.finalize()
            statements[sql] = newValue
        }
    }

    /// The number of statements held.
    var count: Int { statements.count }

    /// Finalizes and drops every statement.
    mutating func removeAll() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
    }
}
