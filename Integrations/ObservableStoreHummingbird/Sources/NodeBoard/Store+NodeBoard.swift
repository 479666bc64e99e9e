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

extension Transaction {
    /// The last commit sequence this transaction's snapshot reflects. The change log always keeps its newest
    /// commit (retention never prunes it), so its largest `seq` is the last sequence assigned.
    func boardLastSequence() throws -> Int64 {
        if case .integer(let sequence) = try fetchValue("SELECT coalesce(max(seq), 0) FROM _store_commits") {
            return sequence
        }
        return 0
    }
}
