import StoreSQLite

extension Connection {
    /// Runs `body` between `begin` and COMMIT; if anything throws (COMMIT included), rolls back when a
    /// transaction is still open and rethrows. The one place the store's transactions begin and end.
    func inTransaction<T>(_ begin: String = "BEGIN IMMEDIATE", _ body: () throws -> T) throws -> T {
        try StoreError.wrapping { try execute(begin) }
        do {
            let result = try body()
            try StoreError.wrapping { try execute("COMMIT") }
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }
}
