import ObservableStoreCore

/// The API of an engine's `Repository<R>` that the conformance cases use (the SQLite `Repository`'s signatures).
protocol ConformanceRepository<R> {
    /// The record type.
    associatedtype R: Record
    /// Inserts `record` in a write of its own; returns it with its generated key.
    func insert(_ record: R) throws -> R
    /// Updates the row with `record`'s key.
    func update(_ record: R) throws
    /// Deletes the row with `key`; whether there was one.
    func delete(key: R.Key) throws -> Bool
    /// The record with `key`, or nil.
    func fetch(_ key: R.Key) throws -> R?
    /// The records `query` selects.
    func fetchAll(_ query: Query<R>) throws -> [R]
    /// How many records `query` selects.
    func count(_ query: Query<R>) throws -> Int
}
