/// A transaction of either engine: what a `read` or `write` closure is given. `SQLiteTransaction` and
/// `PostgresTransaction` conform, with the same names and the same behaviour, so code written against
/// `some StoreTransaction` (or a ``RecordStore``'s `Transaction`) works on both.
///
/// Each engine's type documents its own details (SQLite's statement cache, PostgreSQL's lock waits and `async`
/// forms). A transaction is valid only inside the closure it was given to.
///
/// ```swift
/// func rename<T: StoreTransaction>(_ key: Int64, to name: String, in tx: T) throws {
///     guard var node = try tx.fetch(NodeVO.self, key: key) else { return }
///     node.name = name
///     try tx.update(node)
/// }
/// ```
public protocol StoreTransaction: AnyObject {
    // MARK: Records

    /// Inserts `record`; returns it with its assigned key.
    @discardableResult
    func insert<R: Record>(_ record: R) throws -> R
    /// Inserts `record`, or updates the row with its primary key; returns it with its key.
    @discardableResult
    func upsert<R: Record>(_ record: R) throws -> R
    /// Updates the row of `record`'s key; throws ``StoreError/Code/notFound`` if there is none.
    func update<R: Record>(_ record: R) throws
    /// Writes only the columns named `columns` of `record` to its row.
    func update<R: Record>(_ record: R, columns: [String]) throws
    /// Writes only `columns` of `record` to its row.
    func update<R: Record>(_ record: R, columns: [R.Columns]) throws
    /// Deletes `record`'s row; returns whether one was deleted.
    @discardableResult
    func delete<R: Record>(_ record: R) throws -> Bool
    /// Deletes the row of `type` with primary key `key`; returns whether one was deleted.
    @discardableResult
    func delete<R: Record>(_ type: R.Type, key: R.Key) throws -> Bool
    /// Deletes the row of `type` with primary key value `key`; returns whether one was deleted.
    @discardableResult
    func delete<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> Bool
    /// Deletes what `query` selects; returns how many rows.
    @discardableResult
    func deleteAll<R: Record>(_ query: RecordQuery<R>) throws -> Int
    /// The record of `type` with primary key `key`, or nil.
    func fetch<R: Record>(_ type: R.Type, key: R.Key) throws -> R?
    /// The record of `type` with primary key value `key`, or nil.
    func fetch<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> R?
    /// Every record `query` selects.
    func fetchAll<R: Record>(_ query: RecordQuery<R>) throws -> [R]
    /// The first record `query` selects, or nil.
    func fetchOne<R: Record>(_ query: RecordQuery<R>) throws -> R?
    /// How many records `query` selects.
    func count<R: Record>(_ query: RecordQuery<R>) throws -> Int

    // MARK: SQL

    /// Runs one statement with positional `arguments`; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> Int
    /// Runs a query with positional `arguments`; its rows.
    func fetchRows(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> [Row]
    /// Runs a query with named `arguments`; its rows.
    func fetchRows(_ sql: String, named arguments: [String: any DatabaseValueConvertible]) throws -> [Row]
    /// The first column of a query's first row, or nil when it returns no row.
    func fetchValue(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> DatabaseValue?
    /// Runs a query and decodes each row as a `T` (columns by name, as for records).
    func fetchAll<T: Decodable>(_ type: T.Type, sql: String, arguments: [any DatabaseValueConvertible]) throws -> [T]

    // MARK: The transaction

    /// The last commit sequence assigned in the store (0 before the first commit), as this transaction sees it.
    func lastSequence() throws -> Int64
    /// Runs `body` inside a savepoint: if it throws, only its work is rolled back, then the error is rethrown.
    func savepoint<T>(_ body: (Self) throws -> T) throws -> T
}
