import ObservableStoreCore

// The SQLite engine's sides of observed values: how SQLite compares a column's values (``ColumnTraits``), so that
// most commits are judged against a query's held result in memory, and the tables and columns a tracked read read
// (``ReadRegion``), so that `observe(tracking:)` runs again only for a commit to them.
extension SQLiteStore {
    /// The affinity and collation of `columns` of `table` as `snapshot` sees the schema; a column the table does not
    /// have is left out.
    package static func columnComparators(
        of table: String, columns: Set<String>, in snapshot: SQLiteTransaction
    ) throws -> [String: any ColumnComparator] {
        snapshot.columnTraits(table: table, columns: columns)
    }

    /// Runs `read` and records the tables and columns its statements read (SQLite's authorizer reports them): the
    /// engine's side of the core's `observe(tracking:)`, which runs it again only for a commit that changes them.
    package func tracking<Value>(
        _ read: (SQLiteTransaction) throws -> Value, in snapshot: SQLiteTransaction
    ) throws -> (value: Value, mayChange: @Sendable (Commit) -> Bool) {
        let (value, region) = try ReadRegion.recording(in: snapshot) { try read(snapshot) }
        return (value, { commit in region.isChanged(by: commit) })
    }
}
