import ObservableStoreCore
import StoreSQLite

extension Connection {
    /// Runs `body` between `begin` and COMMIT; if anything throws (COMMIT included), rolls back when a
    /// transaction is still open and rethrows. The one place the store's transactions begin and end.
    func inTransaction<T>(_ begin: String = "BEGIN IMMEDIATE", _ body: () throws -> T) throws -> T {
        try runCached(begin)
        do {
            let result = try body()
            try runCached("COMMIT")
            return result
        } catch {
            if isInTransaction { try? runCached("ROLLBACK") }
            throw error
        }
    }

    /// Runs one statement without arguments from the statement cache (BEGIN and COMMIT are not parsed
    /// again for every transaction).
    private func runCached(_ sql: String) throws {
        try StoreError.wrapping { try cachedStatement(sql).execute() }
    }
}
