// The live models (`@Observable`) on a store of either engine.
extension LiveQuery {
    /// A model of the records `query` selects in `store`, compared with `==`, changing on `actor`.
    ///
    /// Reads the records before it returns (on the calling thread). When that read fails, or the store is closed,
    /// the model starts with no records and ``error`` set, and does not observe.
    public convenience init(_ query: RecordQuery<R>, in store: some RecordStore, on actor: any Actor = MainActor.shared)
    where R: Equatable {
        self.init(
            query, on: actor, isSame: ==, values: { try store.values(of: query) },
            snapshot: { try store.engineHandle.engine.readSnapshot { tx in try tx.fetchAll(query) } })
    }

    /// A model of the records `query` selects in `store`, compared by the values of their columns (`R` is not
    /// `Equatable`), changing on `actor`.
    ///
    /// Reads the records before it returns (on the calling thread). When that read fails, or the store is closed,
    /// the model starts with no records and ``error`` set, and does not observe.
    public convenience init(_ query: RecordQuery<R>, in store: some RecordStore, on actor: any Actor = MainActor.shared) {
        self.init(
            query, on: actor, isSame: RowEncoder.sameRecords, values: { try store.values(of: query) },
            snapshot: { try store.engineHandle.engine.readSnapshot { tx in try tx.fetchAll(query) } })
    }
}

extension LiveRecord {
    /// A model of the record of `type` whose primary key is `key` in `store`, changing on `actor`.
    ///
    /// Reads the record before it returns (on the calling thread). When that read fails, or the store is closed,
    /// the model starts with no record and ``error`` set, and does not observe.
    public convenience init(
        _ type: R.Type, key: R.Key, in store: some RecordStore, on actor: any Actor = MainActor.shared
    ) {
        self.init(
            key: key, on: actor, values: { try store.value(of: type, key: key) },
            snapshot: { try store.engineHandle.engine.readSnapshot { tx in try tx.fetch(R.self, key: key) } })
    }
}
