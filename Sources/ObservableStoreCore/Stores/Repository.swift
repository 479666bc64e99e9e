/// Typed access to one table of a store on either engine: each call runs in its own transaction (reads where the
/// engine reads, writes on its writer). Group several calls into one transaction with the store's
/// `write(origin:_:)` and the same methods on its transaction (``StoreTransaction``).
///
/// For example:
///
/// ```swift
/// let nodes = store.repository(NodeVO.self)
/// let node = try nodes.insert(NodeVO(name: "Start", x: 0, y: 0))
/// let same = try nodes.fetch(node.id!)
/// ```
public struct Repository<R: Record>: Sendable {
    /// The store this repository reads and writes.
    public let store: any RecordStore
    /// The origin tag of this repository's commits (``Commit/origin``).
    public let origin: String?
    /// The engine's fetch by key, reached once: a fetch by key takes a few microseconds in all, and opening the store
    /// and reaching its engine at every call would add a sixth to it.
    private let fetchByKey: @Sendable (R.Key) throws -> R?

    /// A repository of `store`; usually made with ``RecordStore/repository(_:origin:)``.
    public init(store: any RecordStore, origin: String? = nil) {
        self.store = store
        self.origin = origin
        fetchByKey = store.keyFetcher(R.self)
    }

    /// Inserts `record`; returns it with its assigned key. See ``StoreTransaction/insert(_:)``.
    @discardableResult
    public func insert(_ record: R) throws -> R { try store.repositoryWrite(origin: origin) { try $0.insert(record) } }

    /// Inserts all `records` in one transaction; returns them with their keys. All or nothing.
    @discardableResult
    public func insertAll(_ records: [R]) throws -> [R] {
        try store.repositoryWrite(origin: origin) { tx in try records.map { try tx.insert($0) } }
    }

    /// Inserts or updates `record` by primary key. See ``StoreTransaction/upsert(_:)``.
    @discardableResult
    public func upsert(_ record: R) throws -> R { try store.repositoryWrite(origin: origin) { try $0.upsert(record) } }

    /// Updates the row of `record`'s key; throws ``StoreError/Code/notFound`` if there is none.
    public func update(_ record: R) throws { try store.repositoryWrite(origin: origin) { try $0.update(record) } }

    /// Writes only `columns` of `record` to its row (named as in the table).
    public func update(_ record: R, columns: [String]) throws {
        try store.repositoryWrite(origin: origin) { try $0.update(record, columns: columns) }
    }

    /// Writes only `columns` of `record` to its row: `nodes.update(node, columns: [.x, .y])`.
    public func update(_ record: R, columns: [R.Columns]) throws {
        try store.repositoryWrite(origin: origin) { try $0.update(record, columns: columns) }
    }

    /// Deletes `record`'s row; returns whether one was deleted.
    @discardableResult
    public func delete(_ record: R) throws -> Bool { try store.repositoryWrite(origin: origin) { try $0.delete(record) } }

    /// Deletes the row with primary key `key`; returns whether one was deleted.
    @discardableResult
    public func delete(key: R.Key) throws -> Bool {
        try store.repositoryWrite(origin: origin) { try $0.delete(R.self, key: key) }
    }

    /// Deletes what `query` selects; returns how many rows.
    @discardableResult
    public func deleteAll(_ query: RecordQuery<R>) throws -> Int {
        try store.repositoryWrite(origin: origin) { try $0.deleteAll(query) }
    }

    /// The record with primary key `key`, or nil.
    public func fetch(_ key: R.Key) throws -> R? { try fetchByKey(key) }

    /// Every record `query` selects (all of them by default).
    public func fetchAll(_ query: RecordQuery<R> = RecordQuery()) throws -> [R] { try store.repositoryRead { try $0.fetchAll(query) } }

    /// The first record `query` selects, or nil.
    public func fetchOne(_ query: RecordQuery<R>) throws -> R? { try store.repositoryRead { try $0.fetchOne(query) } }

    /// How many records `query` selects (all of them by default).
    public func count(_ query: RecordQuery<R> = RecordQuery()) throws -> Int { try store.repositoryRead { try $0.count(query) } }
}

extension RecordStore {
    /// A repository of `type`'s table in this store; its commits carry `origin`, if given.
    public func repository<R: Record>(_ type: R.Type, origin: String? = nil) -> Repository<R> {
        Repository(store: self, origin: origin)
    }

    // What `Repository` calls on its `any RecordStore`: the transaction as the protocol, so no member names the
    // store's associated type and each call opens the existential by itself.

    /// `body` in a write transaction of its own.
    fileprivate func repositoryWrite<T>(origin: String?, _ body: (any StoreTransaction) throws -> T) throws -> T {
        try write(origin: origin) { tx in try body(tx) }
    }

    /// `body`, which runs one statement, as the engine runs one statement.
    fileprivate func repositoryRead<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try engineHandle.engine.readOneStatement { tx in try body(tx) }
    }

    /// The engine's fetch by key of `type`'s records.
    fileprivate func keyFetcher<Fetched: Record>(_ type: Fetched.Type) -> @Sendable (Fetched.Key) throws -> Fetched? {
        let engine = engineHandle.engine
        return { key in try engine.fetchRecord(type, key: key) }
    }
}
