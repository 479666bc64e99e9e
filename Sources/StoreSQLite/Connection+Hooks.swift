import Foundation
internal import ObservableStoreCSQLite
import ObservableStoreCore

/// One row about to change, as the preupdate hook reports it. Valid only during the callback.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/preupdate_blobwrite.html>
package struct PreupdateChange: ~Copyable {
    /// The kind of change. The raw values are stored in the change-log payload (the format defined on
    /// `ChangePayload` in ObservableStore): never renumber them.
    package enum Operation: UInt8, Sendable {
        case insert = 1
        case update = 2
        case delete = 3
    }

    fileprivate let connection: OpaquePointer
    /// INSERT, UPDATE or DELETE.
    package let operation: Operation
    fileprivate let databaseNamePointer: UnsafePointer<CChar>
    fileprivate let tableNamePointer: UnsafePointer<CChar>
    /// The rowid before the change (meaningless for WITHOUT ROWID tables and for inserts).
    package let oldRowID: Int64
    /// The rowid after the change (meaningless for WITHOUT ROWID tables and for deletes).
    package let newRowID: Int64

    /// Whether the change is in the main database.
    package var isMainDatabase: Bool { strcmp(databaseNamePointer, "main") == 0 }
    /// The table's name.
    package var tableName: String { String(cString: tableNamePointer) }
    /// Whether the table's name is `name` (no String is made).
    package func tableNameIs(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return tableNamePointer[0] == 0 }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                strncmp(tableNamePointer, $0, bytes.count) == 0
            } && tableNamePointer[bytes.count] == 0
        }
    }
    /// Whether the table's name starts with `prefix` (no String is made).
    package func tableNameHasPrefix(_ prefix: StaticString) -> Bool {
        strncmp(tableNamePointer, UnsafeRawPointer(prefix.utf8Start).assumingMemoryBound(to: CChar.self), prefix.utf8CodeUnitCount) == 0
    }
    /// The number of columns of the table.
    package var columnCount: Int32 { sqlite3_preupdate_count(connection) }

    /// Appends every column's value before the change (UPDATE, DELETE) in ``ValueCodec`` form.
    package func appendOldValues(to bytes: inout [UInt8]) {
        for index in 0..<columnCount {
            var value: OpaquePointer?
            sqlite3_preupdate_old(connection, index, &value)
            PreupdateChange.append(value, to: &bytes)
        }
    }

    /// Appends every column's value after the change (INSERT, UPDATE) in ``ValueCodec`` form.
    package func appendNewValues(to bytes: inout [UInt8]) {
        for index in 0..<columnCount {
            var value: OpaquePointer?
            sqlite3_preupdate_new(connection, index, &value)
            PreupdateChange.append(value, to: &bytes)
        }
    }

    /// Appends an UPDATE's values: every column's old value, then its new values, a column that kept its old
    /// value written as ``ValueCodec/unchangedTag`` (an update of one column logs one new value, not the
    /// whole row again). One pass over the columns: each value is fetched and its type read once.
    package func appendUpdateValues(to bytes: inout [UInt8]) {
        let count = Int(columnCount)
        withUnsafeTemporaryAllocation(of: NewValue.self, capacity: count) { newValues in
            for index in 0..<count {
                var old: OpaquePointer?
                var new: OpaquePointer?
                sqlite3_preupdate_old(connection, Int32(index), &old)
                sqlite3_preupdate_new(connection, Int32(index), &new)
                let oldType = old.map(sqlite3_value_type) ?? SQLITE_NULL
                let newType = new.map(sqlite3_value_type) ?? SQLITE_NULL
                PreupdateChange.append(old, type: oldType, to: &bytes)
                var unchanged = false
                if let old, let new { unchanged = PreupdateChange.same(old, new, type: oldType, otherType: newType) }
                newValues.initializeElement(at: index, to: NewValue(value: new, type: newType, unchanged: unchanged))
            }
            for new in newValues.prefix(count) {
                if new.unchanged {
                    bytes.append(ValueCodec.unchangedTag)
                } else {
                    PreupdateChange.append(new.value, type: new.type, to: &bytes)
                }
            }
            _ = newValues.deinitialize()
        }
    }

    /// A column's new value, kept while the old values are written.
    private struct NewValue {
        var value: OpaquePointer?
        var type: Int32
        var unchanged: Bool
    }

    /// Whether two values (of types `type` and `otherType`) have the same storage class and bits or bytes.
    private static func same(_ a: OpaquePointer, _ b: OpaquePointer, type: Int32, otherType: Int32) -> Bool {
        guard type == otherType else { return false }
        switch type {
        case SQLITE_NULL: return true
        case SQLITE_INTEGER: return sqlite3_value_int64(a) == sqlite3_value_int64(b)
        case SQLITE_FLOAT: return sqlite3_value_double(a).bitPattern == sqlite3_value_double(b).bitPattern
        case SQLITE_TEXT, SQLITE_BLOB:
            let first = type == SQLITE_TEXT ? textBytes(of: a) : sqlite3_value_blob(a)
            let second = type == SQLITE_TEXT ? textBytes(of: b) : sqlite3_value_blob(b)
            let count = sqlite3_value_bytes(a)
            guard count == sqlite3_value_bytes(b) else { return false }
            guard count > 0 else { return true }
            guard let first, let second else { return false }
            return memcmp(first, second, Int(count)) == 0
        default: return false
        }
    }

    /// A TEXT value's UTF-8 bytes (`sqlite3_value_bytes` of them), not NUL-terminated. A hook's values point
    /// into the row's record, where the text has no terminating NUL: `sqlite3_value_text` would copy it into
    /// a new allocation to add one, `sqlite3_value_blob` returns it in place ("TEXT to BLOB: no change").
    /// Text stored as UTF-16 (a database created so) is converted by `sqlite3_value_text`, and so is all
    /// text with an SQLite older than 3.40, which has no `sqlite3_value_encoding`.
    private static func textBytes(of value: OpaquePointer) -> UnsafeRawPointer? {
        if let encoding = valueEncoding, encoding(value) == SQLITE_UTF8 { return sqlite3_value_blob(value) }
        return UnsafeRawPointer(sqlite3_value_text(value))
    }

    /// Whether text is read in place (the running SQLite has `sqlite3_value_encoding`), for tests.
    package static var readsTextInPlace: Bool { valueEncoding != nil }

    /// `sqlite3_value_encoding` (SQLite 3.40 and later), looked up when first needed: called directly, it
    /// would make 3.40 the oldest SQLite the package builds and runs with (Ubuntu 22.04 has 3.37).
    private static let valueEncoding: (@convention(c) (OpaquePointer?) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sqlite3_value_encoding") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (OpaquePointer?) -> Int32).self)
    }()

    private static func append(_ value: OpaquePointer?, to bytes: inout [UInt8]) {
        append(value, type: value.map(sqlite3_value_type) ?? SQLITE_NULL, to: &bytes)
    }

    /// Appends `value`, whose `sqlite3_value_type` is `type` (NULL when `value` is nil).
    private static func append(_ value: OpaquePointer?, type: Int32, to bytes: inout [UInt8]) {
        guard let value else { return bytes.append(ValueCodec.nullTag) }
        switch type {
        case SQLITE_INTEGER: ValueCodec.appendInteger(sqlite3_value_int64(value), to: &bytes)
        case SQLITE_FLOAT: ValueCodec.appendReal(sqlite3_value_double(value), to: &bytes)
        case SQLITE_TEXT:
            let text = textBytes(of: value)
            ValueCodec.appendBytes(tag: ValueCodec.textTag, text, count: Int(sqlite3_value_bytes(value)), to: &bytes)
        case SQLITE_BLOB:
            let blob = sqlite3_value_blob(value)
            ValueCodec.appendBytes(tag: ValueCodec.blobTag, blob, count: Int(sqlite3_value_bytes(value)), to: &bytes)
        default: bytes.append(ValueCodec.nullTag)
        }
    }
}

/// Keeps the Swift closure of the preupdate hook alive while SQLite holds a pointer to it.
final class PreupdateHookBox {
    let handler: (borrowing PreupdateChange) -> Void
    init(_ handler: @escaping (borrowing PreupdateChange) -> Void) { self.handler = handler }
}

/// The WAL's size in frames after this connection's last commit, as `sqlite3_wal_hook` reports it.
final class WALHookBox {
    var frames: Int32 = 0
}

extension Connection {
    /// Takes checkpoints out of COMMIT. By default SQLite checkpoints inside the COMMIT that grows the WAL
    /// past 1,000 pages, so that commit returns milliseconds later (an fsync or two). After this call it no
    /// longer does (a WAL hook replaces the automatic checkpoint): ``framesInWAL`` tells the WAL's size after
    /// each commit, and the owner calls ``checkpoint()`` once the commit's work is done.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/wal_hook.html>
    package func deferCheckpoints() {
        let box = WALHookBox()
        walHook = box
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                if let context { Unmanaged<WALHookBox>.fromOpaque(context).takeUnretainedValue().frames = frames }
                return SQLITE_OK
            }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// The WAL's size in frames after this connection's last commit (0 unless ``deferCheckpoints()`` was called).
    package var framesInWAL: Int { Int(walHook?.frames ?? 0) }

    /// Copies what it can of the WAL into the database file without waiting for readers or writers
    /// (`SQLITE_CHECKPOINT_PASSIVE`), as SQLite's automatic checkpoint does.
    package func checkpoint() throws(SQLiteError) {
        guard !isClosed else { return }
        _ = try checkpoint(.passive)
    }

    /// Installs (or, with nil, removes) the callback SQLite calls before each row it inserts, updates
    /// or deletes (`sqlite3_preupdate_hook`).
    ///
    /// The callback runs inside `sqlite3_step`, on the thread using the connection. It must not use the
    /// connection (no prepare, no step, not even a SELECT): copy what it needs and return.
    package func setPreupdateHook(_ handler: ((borrowing PreupdateChange) -> Void)?) {
        guard let handler else {
            sqlite3_preupdate_hook(handle, nil, nil)
            preupdateHook = nil
            return
        }
        let box = PreupdateHookBox(handler)
        preupdateHook = box
        sqlite3_preupdate_hook(
            handle,
            { context, db, operation, databaseName, tableName, oldRowID, newRowID in
                let kind: PreupdateChange.Operation? =
                    switch operation {
                    case SQLITE_INSERT: .insert
                    case SQLITE_UPDATE: .update
                    case SQLITE_DELETE: .delete
                    default: nil
                    }
                guard let context, let db, let databaseName, let tableName, let kind else { return }
                let box = Unmanaged<PreupdateHookBox>.fromOpaque(context).takeUnretainedValue()
                box.handler(
                    PreupdateChange(
                        connection: db, operation: kind, databaseNamePointer: databaseName, tableNamePointer: tableName,
                        oldRowID: oldRowID, newRowID: newRowID))
            }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// The main database's data version (`SQLITE_FCNTL_DATA_VERSION`): moves with every commit to the file,
    /// this connection's own included (`PRAGMA data_version` leaves those out); another connection's commit
    /// shows once this one has started a transaction after it. Read without running a statement.
    package var fileDataVersion: UInt32 {
        var version: UInt32 = 0
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        return version
    }

    /// `PRAGMA data_version`: changes when another connection commits to the file.
    package func dataVersion() throws(SQLiteError) -> Int64 {
        let statement = try cachedStatement("PRAGMA data_version")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }
}
