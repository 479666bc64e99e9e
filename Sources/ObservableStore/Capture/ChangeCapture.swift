import Foundation
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
/// A large transaction is captured in pieces: once the current piece's records reach ``pieceByteLimit``, the
/// piece is sealed and moved to a temporary file (``SpillFile``), so memory does not grow with the transaction
/// (the preupdate hook may not write to the database, and one statement can change millions of rows). Each
/// piece becomes one row of the change log at commit. Table indexes are the transaction's, so every piece's
/// records decode with the transaction's table list.
///
/// Used only inside writes, with the writer's lock held (the hook runs inside their `sqlite3_step`); not
/// thread-safe.
final class ChangeCapture {
    /// A position in the capture, to roll back to.
    struct Marker {
        fileprivate var piece: Int
        fileprivate var byteCount: Int
        fileprivate var changeCount: Int
    }

    /// A piece moved to the spill file: its records, then its record offsets (`Int`s), from `offset`.
    private struct SealedPiece {
        var offset: Int
        var byteCount: Int
        var changeCount: Int
        /// The indexes of the tables its records touch.
        var touchedTables: [Int]
    }

    /// The size in bytes past which the current piece is sealed. A few MiB by default; the change log keeps
    /// it well under the writer connection's length limit.
    var pieceByteLimit = ChangeCapture.defaultPieceByteLimit
    /// 4 MiB: about 37,000 changed rows of ~111 bytes.
    static let defaultPieceByteLimit = 4 << 20
    /// Where the spill file goes: the database's directory (on the same disk as the data, where a temporary
    /// directory might be in memory); the temporary directory for an in-memory store.
    var spillDirectory = FileManager.default.temporaryDirectory

    // Appended to many times per captured row, always inside a write: the runtime's exclusivity
    // checks are turned off for these.
    /// The current (last) piece's records.
    @exclusivity(unchecked) private(set) var records: [UInt8] = []
    /// Where each change record of the current piece starts in `records` (one per change).
    @exclusivity(unchecked) private(set) var recordOffsets: [Int] = []
    /// The pieces sealed before the current one, oldest first.
    @exclusivity(unchecked) private var sealed: [SealedPiece] = []
    @exclusivity(unchecked) private var sealedChangeCount = 0
    @exclusivity(unchecked) private var spill: SpillFile?
    /// The first failure of the spill file: the commit fails with it (a hook cannot throw).
    @exclusivity(unchecked) private var spillError: (any Error)?
    /// The changes captured, in every piece.
    var changeCount: Int { sealedChangeCount + recordOffsets.count }
    /// How many pieces the capture holds (sealed ones and the current one).
    var pieceCount: Int { sealed.count + 1 }
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
        // The spill file failed: the commit will fail with that error; capturing more would only grow memory.
        guard spillError == nil else { return }
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
        if records.count >= pieceByteLimit { seal() }
    }

    /// Moves the current piece to the spill file and starts a new one.
    private func seal() {
        guard spillError == nil else { return }  // keep everything in memory: the commit will fail anyway
        do {
            let file = try spill ?? SpillFile(in: spillDirectory)
            spill = file
            let offset = try records.withUnsafeBytes { try file.append($0) }
            _ = try recordOffsets.withUnsafeBytes { try file.append($0) }
            sealed.append(
                SealedPiece(
                    offset: offset, byteCount: records.count, changeCount: recordOffsets.count,
                    touchedTables: touchedTableIndexes(records: records, offsets: recordOffsets)))
            sealedChangeCount += recordOffsets.count
            records.removeAll(keepingCapacity: true)
            recordOffsets.removeAll(keepingCapacity: true)
        } catch {
            spillError = error
        }
    }

    /// Piece `index`'s records and record offsets (the current piece's for the last index), read back from the
    /// spill file for a sealed one. Throws the spill file's first failure, if any.
    func piece(_ index: Int) throws -> (records: [UInt8], offsets: [Int]) {
        if let spillError { throw spillError }
        guard index < sealed.count, let spill else { return (records, recordOffsets) }
        var bytes: [UInt8] = []
        try spill.read(sealed[index].byteCount, at: sealed[index].offset, into: &bytes)
        return (bytes, try readOffsets(of: sealed[index], from: spill))
    }

    /// Piece `index`'s change count.
    func changeCount(ofPiece index: Int) -> Int {
        index < sealed.count ? sealed[index].changeCount : recordOffsets.count
    }

    private func readOffsets(of piece: SealedPiece, from spill: SpillFile) throws -> [Int] {
        var bytes: [UInt8] = []
        try spill.read(piece.changeCount * MemoryLayout<Int>.stride, at: piece.offset + piece.byteCount, into: &bytes)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int.self)) }
    }

    /// ``touchedTableNames`` joined with commas, as the change log's `tables` column holds them.
    var touchedTableList: String {
        let names = touchedTableNames
        return names.count == 1 ? names[0] : names.joined(separator: ",")  // one table: no joining
    }

    /// The tables that still have a change after rollbacks, in first-seen order.
    var touchedTableNames: [String] {
        // One table seen: every remaining record is its (the usual commit, and no walk through a bulk one).
        if tableNames.count == 1 { return changeCount == 0 ? [] : tableNames }
        var touched = [Bool](repeating: false, count: tableNames.count)
        for index in sealed.flatMap(\.touchedTables) + touchedTableIndexes(records: records, offsets: recordOffsets) {
            touched[index] = true
        }
        return tableNames.indices.filter { touched[$0] }.map { tableNames[$0] }
    }

    /// The indexes of the tables the records at `offsets` touch.
    private func touchedTableIndexes(records: [UInt8], offsets: [Int]) -> [Int] {
        var touched = [Bool](repeating: false, count: tableNames.count)
        for offset in offsets {
            var reader = ValueReader(records, offset: offset)
            if let index = try? reader.varint(), index < touched.count { touched[Int(index)] = true }
        }
        return touched.indices.filter { touched[$0] }
    }

    /// The current position.
    func mark() -> Marker { Marker(piece: sealed.count, byteCount: records.count, changeCount: recordOffsets.count) }

    /// Forgets everything captured after `marker` (a failed statement, a rolled-back savepoint). A marker in a
    /// sealed piece brings that piece back from the spill file and drops the pieces after it.
    func rollback(to marker: Marker) {
        if marker.piece < sealed.count { reopen(marker.piece) }
        guard marker.piece == sealed.count else { return }  // reopening failed: the commit fails with spillError
        records.removeSubrange(min(marker.byteCount, records.count)...)
        recordOffsets.removeSubrange(min(marker.changeCount, recordOffsets.count)...)
    }

    /// Makes sealed piece `index` the current one again, dropping every piece after it.
    private func reopen(_ index: Int) {
        guard spillError == nil, let spill else { return }
        do {
            let piece = sealed[index]
            try spill.read(piece.byteCount, at: piece.offset, into: &records)
            recordOffsets = try readOffsets(of: piece, from: spill)
            try spill.truncate(to: piece.offset)
            sealedChangeCount -= sealed[index...].reduce(0) { $0 + $1.changeCount }
            sealed.removeSubrange(index...)
        } catch {
            spillError = error
        }
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
        if spill != nil {
            sealed.removeAll()
            sealedChangeCount = 0
            spill = nil  // closes the file, which was unlinked at creation
        }
        spillError = nil
        if !savepoints.isEmpty { savepoints.removeAll() }
        schemaChanged = false
        wroteStoreMeta = false
    }
}
