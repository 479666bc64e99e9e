#if PostgreSQL
import ObservableStoreCore

/// Typed access to one table of a ``PostgresStore``: each call runs in its own transaction. The same methods as the
/// SQLite engine's `Repository`; group several calls into one transaction with ``PostgresStore/write(origin:_:)`` and
/// the same methods on ``PostgresTransaction``.
///
/// For example:
///
/// ```swift
/// let nodes = store.repository(NodeVO.self)
/// let node = try nodes.insert(NodeVO(name: "Start", x: 0, y: 0))
/// let same = try nodes.fetch(node.id!)
/// ```
public struct PostgresRepository<R: Record>: Sendable {
    /// The store this repository reads and writes.
    public let store: PostgresStore
    /// The origin tag of this repository's commits (see ``PostgresStore/write(origin:_:)``).
    public let origin: String?

    /// A repository of `store`; usually made with ``PostgresStore/repository(_:origin:)``.
    public init(store: PostgresStore, origin: String? = nil) {
        self.store = store
        self.origin = origin
    }

    /// Inserts `record`; returns it with its assigned key. See ``PostgresTransaction/insert(_:)``.
    @discardableResult
    public func insert(_ record: R) throws -> R { try store.write(origin: origin) { try $0.insert(record) } }

    /// Inserts all `records` in one transaction; returns them with their keys. All or nothing.
    @discardableResult
    public func insertAll(_ records: [R]) throws -> [R] {
        try store.write(origin: origin) { tx in try records.map { try tx.insert($0) } }
    }

    /// Inserts or updates `record` by primary key. See ``PostgresTransaction/upsert(_:)``.
    @discardableResult
    public func upsert(_ record: R) throws -> R { try store.write(origin: origin) { try $0.upsert(record) } }

    /// Updates the row of `record`'s key; throws ``/ObservableStoreCore/StoreError/Code/notFound`` if there is none.
    public func update(_ record: R) throws { try store.write(origin: origin) { try $0.update(record) } }

    /// Writes only `columns` of `record` to its row.
    public func update(_ record: R, columns: [String]) throws {
        try store.write(origin: origin) { try $0.update(record, columns: columns) }
    }

    /// Writes only `columns` of `record` to its row: `nodes.update(node, columns: [.x, .y])`.
    public func update(_ record: R, columns: [R.Columns]) throws {
        try store.write(origin: origin) { try $0.update(record, columns: columns) }
    }

    /// Deletes `record`'s row; returns whether one was deleted.
    @discardableResult
    public func delete(_ record: R) throws -> Bool { try store.write(origin: origin) { try $0.delete(record) } }

    /// Deletes the row with primary key `key`; returns whether one was deleted.
    @discardableResult
    public func delete(key: R.Key) throws -> Bool { try store.write(origin: origin) { try $0.delete(R.self, key: key) } }

    /// Deletes what `query` selects; returns how many rows.
    @discardableResult
    public func deleteAll(_ query: Query<R>) throws -> Int { try store.write(origin: origin) { try $0.deleteAll(query) } }

    /// The record with primary key `key`, or nil.
    public func fetch(_ key: R.Key) throws -> R? { try store.readOneStatement { try $0.fetch(R.self, key: key) } }

    /// Every record `query` selects (all of them by default).
    public func fetchAll(_ query: Query<R> = Query()) throws -> [R] { try store.readOneStatement { try $0.fetchAll(query) } }

    /// The first record `query` selects, or nil.
    public func fetchOne(_ query: Query<R>) throws -> R? { try store.readOneStatement { try $0.fetchOne(query) } }

    /// How many records `query` selects (all of them by default).
    public func count(_ query: Query<R> = Query()) throws -> Int { try store.readOneStatement { try $0.count(query) } }
}
#endif
