import ObservableStore

extension Store {
    /// The origin of the board's commits.
    static let boardOrigin = "node-board"

    /// Runs `body` in one write with origin "node-board"; store errors come out as the API's (a constraint is 409,
    /// a missing record 404). If `body` throws, nothing is written.
    func boardWrite<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        do {
            return try await write(origin: Store.boardOrigin, body)
        } catch {
            throw APIError.mapping(error)
        }
    }
}
