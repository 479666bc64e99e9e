import ObservableStoreCore
import StoreSQLite

/// Buffers the row changes of the open write transaction, as the preupdate hook reports them, in
/// ``ValueCodec`` form: nothing but copying happens inside the hook.
///
/// Each change record is: table index (varint), operation (byte), old rowid and new rowid (zig-zag
/// varints), column count (varint), then the old values (UPDATE, DELETE) and the new values
/// (INSERT, UPDATE). The table names are kept apart and written as the payload's header at commit.
/// The format is defined on ``ChangePayload``.
///
/// Used only inside writes, with the writer's lock held (the hook runs inside their `sqlite3_step`); not
/// thread-safe.
final class ChangeCapture {
    /// A position in the buffer, to roll back to.
    struct Marker {
        fileprivate var byteCount: Int
        fileprivate var changeCount: Int
    }

    // Appended to many times per captured row, always inside a write: the runtime's exclusivity
    // checks are turned off for these.
    @exclusivity(unchecked) private(set) var records: [UInt8] = []
    /// Where each change record starts in `records` (one per change).
    @exclusivity(unchecked) private(set) var recordOffsets: [Int] = []
    var changeCount: Int { recordOffsets.count }
    @exclusivity(unchecked) private(set) var tableNames: [String] = []
    @exclusivity(unchecked) private var tableIndexes: [String: Int] = [:]
    /// The index of the table of the last change recorded.
    @exclusivity(unchecked) private var lastTableIndex: Int?
    @exclusivity(unchecked) private var savepoints: [Marker] = []
    /// Set when the transaction changed the schema (`PRAGMA schema_version` moved): listeners get a
    /// schema-changed commit.
    @exclusivity(unchecked) var schemaChanged = false
    /// Set when the transaction wrote `_store_meta` (the bookkeeping counter may have moved).
    @exclusivity(unchecked) private(set) var wroteStoreMeta = false

    /// The hook: copies one row change into the buffer. Changes to SQLite's own tables, the store's
    /// internal `_store_` tables and non-main databases (temp, attached) are not captured.
    func record(_ change: borrowing PreupdateChange) {
        guard change.isMainDatabase, !change.tableNameHasPrefix("sqlite_") else { return }
        if change.tableNameHasPrefix("_store_") {
            if change.tableNameIs("_store_meta") { wroteStoreMeta = true }
            return
        }
        let index: Int
        if let last = lastTableIndex, change.tableNameIs(tableNames[last]) {
            index = last  // most changes hit the table of the change before: no String, no hashing
        } else {
            let name = change.tableName
            if let known = tableIndexes[name] {
                index = known
            } else {
                index = tableNames.count
                tableNames.append(name)
                tableIndexes[name] = index
            }
        }
        lastTableIndex = index
        recordOffsets.append(records.count)
        ValueCodec.appendVarint(UInt64(index), to: &records)
        records.append(change.operation.rawValue)
        ValueCodec.appendInteger(change.oldRowID, to: &records)
        ValueCodec.appendInteger(change.newRowID, to: &records)
        ValueCodec.appendVarint(UInt64(change.columnCount), to: &records)
        switch change.operation {
        case .insert: change.appendNewValues(to: &records)
        case .delete: change.appendOldValues(to: &records)
        case .update: change.appendUpdateValues(to: &records)
        }
    }

    /// ``touchedTableNames`` joined with commas, as the change log's `tables` column holds them.
    var touchedTableList: String {
        let names = touchedTableNames
        return names.count == 1 ? names[0] : names.joined(separator: ",")  // one table: no joining
    }

    /// The tables that still have a change after rollbacks, in first-seen order.
    var touchedTableNames: [String] {
        // One table seen: every remaining record is its (the usual commit, and no walk through a bulk one).
        if tableNames.count == 1 { return recordOffsets.isEmpty ? [] : tableNames }
        var touched = [Bool](repeating: false, count: tableNames.count)
        for offset in recordOffsets {
            var reader = ValueReader(records, offset: offset)
            if let index = try? reader.varint(), index < touched.count { touched[Int(index)] = true }
        }
        return tableNames.indices.filter { touched[$0] }.map { tableNames[$0] }
    }

    /// The current position.
    func mark() -> Marker { Marker(byteCount: records.count, changeCount: changeCount) }

    /// Forgets everything captured after `marker` (a failed statement, a rolled-back savepoint).
    func rollback(to marker: Marker) {
        records.removeSubrange(marker.byteCount...)
        recordOffsets.removeSubrange(marker.changeCount...)
    }

    /// `SAVEPOINT`: remembers the position.
    func pushSavepoint() { savepoints.append(mark()) }

    /// `RELEASE`: the savepoint's changes become part of the enclosing one.
    func releaseSavepoint() { _ = savepoints.popLast() }

    /// `ROLLBACK TO` + `RELEASE`: drops the savepoint's changes.
    func rollbackSavepoint() {
        if let marker = savepoints.popLast() { rollback(to: marker) }
    }

    /// Empties the buffer for the next transaction.
    func reset() {
        // Each write resets before and after it runs: the first finds everything empty, and clearing an
        // empty collection is not free.
        if !records.isEmpty { records.removeAll(keepingCapacity: records.count < 1 << 20) }
        if !recordOffsets.isEmpty { recordOffsets.removeAll(keepingCapacity: recordOffsets.count < 1 << 16) }
        if !tableNames.isEmpty {
            tableNames.removeAll(keepingCapacity: true)
            tableIndexes.removeAll(keepingCapacity: true)
        }
        lastTableIndex = nil
        if !savepoints.isEmpty { savepoints.removeAll() }
        schemaChanged = false
        wroteStoreMeta = false
    }
}
