import Foundation
import ObservableStoreCore
import StoreSQLite
import Synchronization

/// The change log's per-commit payload (`_store_commits.payload`): a header naming each table touched
/// (with its columns and primary-key columns), then the change records of ``ChangeCapture``.
///
/// This comment is **the definition of the wire format**; `docs/OBSERVATION.md` ("The change-log payload")
/// repeats it for readers of the docs. Stores keep these bytes for as long as retention keeps a commit, and
/// other processes (of other versions) decode them: change them only with a new ``version``, and keep
/// reading the old ones (``readableVersions``).
///
/// ```
/// payload := version tableCount table* changeCount record*
/// table   := name columnCount columnName* pkCount pkIndex* realCount realIndex*
/// record  := tableIndex operation oldRowID newRowID valueCount values
/// values  := INSERT: new*valueCount | DELETE: old*valueCount | UPDATE: old*valueCount newOrSame*valueCount
/// ```
///
/// - `version`: one byte, 2 (written); 1 is still read. Version 1 has no unchanged marker (an UPDATE's new
///   image is whole); otherwise the two are the same.
/// - Counts, lengths and indexes (`tableCount`, `columnCount`, `pkCount`, `pkIndex`, `realCount`,
///   `realIndex`, `changeCount`, `tableIndex`, `valueCount`): unsigned LEB128 varints, 7 bits a byte, low
///   group first, high bit set on every byte but the last.
/// - Strings (`name`, `columnName`): a varint byte length, then the UTF-8 bytes, no tag, no NUL.
/// - `table`: one per table touched, in first-touched order; `tableIndex` in a record is its position
///   here (from 0). `pkIndex`: the declared primary-key columns' positions, in key order (none: the table
///   is keyed by its rowid). `realIndex`: the REAL-affinity columns: SQLite keeps an integral REAL as an
///   integer in the row and the preupdate hook reports it so; decoding turns it back into a REAL, as a
///   SELECT would. Column names travel with each commit, so a commit stays readable after later migrations.
/// - `operation`: one byte, `PreupdateChange.Operation`'s raw value: 1 INSERT, 2 UPDATE, 3 DELETE.
/// - `oldRowID`, `newRowID`: tagged INTEGER values (tag 1, zig-zag varint); the one that does not apply
///   (an insert's old, a delete's new) holds whatever the hook reported and is ignored.
/// - `valueCount`: the table's column count when the row changed (it may differ from the header's after
///   an `ALTER TABLE` by another process: extra columns are named `column<N>`, missing ones dropped).
/// - Each value: a tag byte, then
///
///   | tag | value | then |
///   |---|---|---|
///   | 0 | NULL | nothing |
///   | 1 | INTEGER | zig-zag varint: `(n << 1) ^ (n >> 63)`, so -1 is 1, 1 is 2 |
///   | 2 | REAL | the IEEE 754 bit pattern, 8 bytes little-endian |
///   | 3 | TEXT | varint byte length, UTF-8 bytes |
///   | 4 | BLOB | varint byte length, the bytes |
///   | 5 | unchanged | nothing: only in an UPDATE's new image (`newOrSame`), "the value of this column in the old image" |
///
/// Records are written inside SQLite's preupdate hook by `ChangeCapture` (table index, operation, rowids,
/// count) and `PreupdateChange` in StoreSQLite (the values, straight from `sqlite3_value`s). So the tags
/// and the varint and zig-zag encoders are constants of `ValueCodec` in `StoreSQLite/ValueCodec.swift`:
/// the hook must write them and the SQLite layer may not name this module. They are part of this format,
/// not a second one; the header and assembly are here.
///
/// A decoded UPDATE whose primary key changed becomes a delete of the old key and an insert of the new one.
enum ChangePayload {
    static let version: UInt8 = 2
    static let readableVersions: ClosedRange<UInt8> = 1...2

    /// One table's header entry.
    struct Table: Sendable, Equatable {
        var name: String
        var columns: [String]
        /// Indexes of the declared primary-key columns, in key order; empty for a rowid-only table.
        var primaryKey: [Int]
        /// Indexes of the columns with REAL affinity.
        var realColumns: [Int] = []
    }

    /// Assembles the payload from the tables' descriptions and the captured records.
    static func encode(tables: [Table], changeCount: Int, records: [UInt8]) -> [UInt8] {
        encode(encodedTables: tables.map(encodedDescription), changeCount: changeCount, records: records)
    }

    /// Assembles the payload from descriptions already encoded by ``encodedDescription(of:)``: the change
    /// log encodes each table's once, not at every commit.
    static func encode(encodedTables: [[UInt8]], changeCount: Int, records: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(records.count + encodedTables.reduce(0) { $0 + $1.count } + 24)
        ValueCodec.appendVarint(UInt64(encodedTables.count), to: &bytes)
        for description in encodedTables { bytes.append(contentsOf: description) }
        ValueCodec.appendVarint(UInt64(changeCount), to: &bytes)
        bytes.append(contentsOf: records)
        return bytes
    }

    /// `table` as the payload describes it: name, columns, primary key, REAL columns.
    static func encodedDescription(of table: Table) -> [UInt8] {
        var bytes: [UInt8] = []
        ValueCodec.appendString(table.name, to: &bytes)
        ValueCodec.appendVarint(UInt64(table.columns.count), to: &bytes)
        for column in table.columns { ValueCodec.appendString(column, to: &bytes) }
        ValueCodec.appendVarint(UInt64(table.primaryKey.count), to: &bytes)
        for index in table.primaryKey { ValueCodec.appendVarint(UInt64(index), to: &bytes) }
        ValueCodec.appendVarint(UInt64(table.realColumns.count), to: &bytes)
        for index in table.realColumns { ValueCodec.appendVarint(UInt64(index), to: &bytes) }
        return bytes
    }

    /// Decodes a payload into changes. A primary-key change becomes a delete and an insert.
    static func decode(_ bytes: [UInt8]) throws -> [Change] {
        do throws(ValueReader.Malformed) {
            var reader = ValueReader(bytes)
            guard readableVersions.contains(try reader.byte()) else { throw ValueReader.Malformed(offset: 0) }
            let tables = try headerCache.tables(in: bytes, reader: &reader)
            let count = try reader.count()
            var changes: [Change] = []
            changes.reserveCapacity(count)
            for _ in 0..<count {
                let tableIndex = try reader.count()
                guard tableIndex < tables.count else { throw ValueReader.Malformed(offset: reader.offset) }
                let table = tables[tableIndex]
                guard let operation = PreupdateChange.Operation(rawValue: try reader.byte()) else {
                    throw ValueReader.Malformed(offset: reader.offset)
                }
                let oldRowID = try integer(&reader)
                let newRowID = try integer(&reader)
                let columnCount = try reader.count()
                var old: [DatabaseValue]?
                var new: [DatabaseValue]?
                var oldValues: [DatabaseValue] = []
                if operation != .insert {
                    oldValues = try values(columnCount, &reader)
                    old = realized(oldValues, table.realColumns)
                }
                if operation != .delete {
                    new = realized(try values(columnCount, &reader, unchangedFrom: oldValues), table.realColumns)
                }
                // A column added by another process since the header was written: name it by position.
                var columns = table.columns
                while columns.count < columnCount { columns.append("column\(columns.count)") }
                if columns.count > columnCount { columns.removeLast(columns.count - columnCount) }
                appendChanges(
                    to: &changes, table: table, columns: columns, operation: operation, old: old, new: new, oldRowID: oldRowID,
                    newRowID: newRowID)
            }
            return changes
        } catch {
            throw StoreError(.corrupt, "a change log payload is malformed (byte \(error.offset))")
        }
    }

    private static func integer(_ reader: inout ValueReader) throws(ValueReader.Malformed) -> Int64 {
        guard case .integer(let value) = try reader.value() else { throw ValueReader.Malformed(offset: reader.offset) }
        return value
    }

    /// Integral values of REAL columns back as REALs.
    private static func realized(_ values: consuming [DatabaseValue], _ realColumns: [Int]) -> [DatabaseValue] {
        var values = values  // consumed: changed in place, not copied
        for index in realColumns where index < values.count {
            if case .integer(let integer) = values[index] { values[index] = .real(Double(integer)) }
        }
        return values
    }

    /// `count` values; with `old` (an UPDATE's new image), a column marked unchanged takes the old value.
    private static func values(
        _ count: Int, _ reader: inout ValueReader, unchangedFrom old: [DatabaseValue] = []
    ) throws(ValueReader.Malformed) -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            values.append(index < old.count ? try reader.value(unchangedFrom: old[index]) : try reader.value())
        }
        return values
    }

    private static func appendChanges(
        to changes: inout [Change], table: Table, columns: [String], operation: PreupdateChange.Operation, old: [DatabaseValue]?,
        new: [DatabaseValue]?, oldRowID: Int64, newRowID: Int64
    ) {
        func key(_ values: [DatabaseValue], rowID: Int64) -> [DatabaseValue] {
            // A row captured before its table was rebuilt in the same transaction may be shorter than the
            // header's key position: it is then known by its rowid.
            guard !table.primaryKey.isEmpty, table.primaryKey.allSatisfy({ $0 < values.count }) else { return [.integer(rowID)] }
            return table.primaryKey.map { values[$0] }
        }
        let oldRow = old.map { Row(columns: columns, values: $0) }
        let newRow = new.map { Row(columns: columns, values: $0) }
        switch operation {
        case .insert:
            changes.append(
                Change(table: table.name, operation: .insert, key: key(new!, rowID: newRowID), old: nil, new: newRow, changedColumns: columns))
        case .delete:
            changes.append(
                Change(table: table.name, operation: .delete, key: key(old!, rowID: oldRowID), old: oldRow, new: nil, changedColumns: columns))
        case .update:
            let oldKey = key(old!, rowID: oldRowID)
            let newKey = key(new!, rowID: newRowID)
            guard oldKey == newKey else {
                changes.append(Change(table: table.name, operation: .delete, key: oldKey, old: oldRow, new: nil, changedColumns: columns))
                changes.append(Change(table: table.name, operation: .insert, key: newKey, old: nil, new: newRow, changedColumns: columns))
                return
            }
            let changed = columns.indices.filter { old![$0] != new![$0] }.map { columns[$0] }
            changes.append(Change(table: table.name, operation: .update, key: oldKey, old: oldRow, new: newRow, changedColumns: changed))
        }
    }

    /// The tables of the last header decoded, by its bytes: a store's payloads mostly repeat the same
    /// header (the same table), and parsing its column names again was a good part of decoding a small commit.
    private static let headerCache = HeaderCache()

    /// The last header decoded: its bytes and its tables.
    private final class HeaderCache: Sendable {
        private let cached = Mutex<(bytes: [UInt8], tables: [Table])>(([], []))

        /// Reads the header's tables at the reader's offset, from the cache when the bytes are the same.
        func tables(in payload: [UInt8], reader: inout ValueReader) throws(ValueReader.Malformed) -> [Table] {
            let start = reader.offset
            let (knownBytes, knownTables) = cached.withLock { $0 }
            if !knownBytes.isEmpty, reader.hasPrefix(knownBytes) {
                try reader.skip(knownBytes.count)
                return knownTables
            }
            var tables: [Table] = []
            for _ in 0..<(try reader.count()) {
                let name = try reader.string()
                var columns: [String] = []
                for _ in 0..<(try reader.count()) { columns.append(try reader.string()) }
                var primaryKey: [Int] = []
                for _ in 0..<(try reader.count()) { primaryKey.append(try reader.count()) }
                var realColumns: [Int] = []
                for _ in 0..<(try reader.count()) { realColumns.append(try reader.count()) }
                guard primaryKey.allSatisfy({ $0 < columns.count }) else { throw ValueReader.Malformed(offset: reader.offset) }
                tables.append(Table(name: name, columns: columns, primaryKey: primaryKey, realColumns: realColumns))
            }
            let header = Array(payload[start..<reader.offset])
            cached.withLock { $0 = (header, tables) }
            return tables
        }
    }
}
