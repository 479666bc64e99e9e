import ObservableStoreCore

/// The record API of a transaction, as the conformance cases use it: each requirement is the signature of the
/// SQLite `Transaction`'s, so `extension Transaction: ConformanceTransaction {}` needs no body.
protocol ConformanceTransaction: AnyObject {
    /// Inserts `record`; returns it with its generated key.
    func insert<R: Record>(_ record: R) throws -> R
    /// Inserts `record`, or updates the row with its key.
    func upsert<R: Record>(_ record: R) throws -> R
    /// Updates the row with `record`'s key.
    func update<R: Record>(_ record: R) throws
    /// Deletes the row with `record`'s key; whether there was one.
    func delete<R: Record>(_ record: R) throws -> Bool
    /// Deletes the row of `type` with `key`; whether there was one.
    func delete<R: Record>(_ type: R.Type, key: R.Key) throws -> Bool
    /// Deletes what `query` selects; how many rows.
    func deleteAll<R: Record>(_ query: Query<R>) throws -> Int
    /// The record of `type` with `key`, or nil.
    func fetch<R: Record>(_ type: R.Type, key: R.Key) throws -> R?
    /// The records `query` selects.
    func fetchAll<R: Record>(_ query: Query<R>) throws -> [R]
    /// The first record `query` selects.
    func fetchOne<R: Record>(_ query: Query<R>) throws -> R?
    /// How many records `query` selects.
    func count<R: Record>(_ query: Query<R>) throws -> Int
    /// Runs `sql` with positional `arguments`; the number of rows changed.
    func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> Int
    /// The first column of the first row `sql` returns.
    func fetchValue(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> DatabaseValue?
    /// Runs `body` in a savepoint: released when it returns, rolled back (and nothing of it delivered) when it throws.
    func savepoint<T>(_ body: (Self) throws -> T) throws -> T
}
