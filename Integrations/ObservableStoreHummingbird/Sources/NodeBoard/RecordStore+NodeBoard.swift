import ObservableStore

/// The origin of the board's commits.
let boardOrigin = "node-board"

// The board's reads and writes on a store of either engine: the routes hold `any RecordStore`, so the transaction
// they get is the protocol.
extension RecordStore {
    /// Runs `body` in one read transaction.
    func boardRead<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await read { tx in try body(tx) }
    }

    /// Runs `body` in one write with origin "node-board"; store errors come out as the API's (a constraint is 409,
    /// a missing record 404). If `body` throws, nothing is written.
    func boardWrite<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        do {
            return try await write(origin: boardOrigin) { tx in try body(tx) }
        } catch {
            throw APIError.mapping(error)
        }
    }
}
