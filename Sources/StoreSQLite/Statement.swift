import Foundation
internal import ObservableStoreCSQLite
import ObservableStoreCore

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the bind call returns.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
/// `SQLITE_STATIC`: SQLite reads bound text and blobs where they are, until they are bound again.
private let SQLITE_STATIC: sqlite3_destructor_type? = nil

/// One compiled SQL statement (`sqlite3_stmt*`): bind, step, read columns.
///
/// Belongs to the connection that prepared it and shares its threading rules.
package final class Statement {
    let handle: OpaquePointer
    private let connection: OpaquePointer
    private var isFinalized = false
    private var storedSQL: String?
    // Read for every column of every fetched row. A statement is used by one thread at a time (see the
    // type's documentation), so the runtime's exclusivity checks (several per column) are turned off here.
    @exclusivity(unchecked) private var columnIndexes: [String: Int32]?
    @exclusivity(unchecked) private var orderedColumnNames: [String?] = []
    @exclusivity(unchecked) private var nextColumnHint = 0
    /// SQLite's count of this statement's re-preparations when ``columnIndexes`` was built.
    @exclusivity(unchecked) private var columnIndexesPreparation: Int32 = -1
    private var storedKeyword: String?
    /// Whether SQLite holds a copy of a bound text or blob larger than ``largeValueBytes``.
    private var holdsLargeValue = false
    /// Where a binding round (``beginBinding()``) copies the small text it binds: SQLite reads it there
    /// (`SQLITE_STATIC`) instead of allocating a copy of its own at each bind and freeing it at the next.
    /// Allocated with the first such bind, replaced by a larger one when a round outgrows it.
    /// (These are touched for every bound value, by one thread at a time: exclusivity checks are off.)
    @exclusivity(unchecked) private var boundText: UnsafeMutableRawBufferPointer?
    /// The bytes of ``boundText`` the current round has used.
    @exclusivity(unchecked) private var boundTextUsed = 0
    /// The text bytes the current round copied, in all buffers (at most ``boundTextBytes``).
    @exclusivity(unchecked) private var roundTextBytes = 0
    /// Text memory a round outgrew: parameters bound earlier in that round still point there, so it is
    /// freed when the next round starts, which binds them again.
    @exclusivity(unchecked) private var retiredBoundText: [UnsafeMutableRawBufferPointer] = []
    /// Whether the current round copies text into ``boundText`` (not while the statement runs: binding
    /// fails then, and must not change what it reads).
    @exclusivity(unchecked) private var roundBindsInPlace = false

    /// The most text bytes one binding round copies into the statement's own memory; past that, SQLite
    /// copies the text, as for single binds.
    package static let boundTextBytes = 64 * 1024

    /// Bound text and blobs up to this size stay bound after a statement runs, until the next bind replaces
    /// them; larger ones are released at once (``releaseLargeBindings()``).
    package static let largeValueBytes = 16 * 1024

    init(handle: OpaquePointer, connection: OpaquePointer, sql: String?) {
        self.handle = handle
        self.connection = connection
        self.storedSQL = sql
    }

    deinit {
        finalize()
        boundText?.deallocate()
        for buffer in retiredBoundText { buffer.deallocate() }
    }

    /// Releases the compiled statement (`sqlite3_finalize`). Safe to call twice.
    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        sqlite3_finalize(handle)
    }

    /// The statement's SQL text, as prepared.
    package var sql: String {
        if let storedSQL { return storedSQL }
        let text = sqlite3_sql(handle).map { String(cString: $0) } ?? ""
        storedSQL = text
        return text
    }

    /// The statement's first keyword, upper-cased ("SELECT", "INSERT", "CREATE", "COMMIT", …), after
    /// white space and comments. A prepared statement parsed, so its first word says what it is.
    package var leadingKeyword: String {
        if let storedKeyword { return storedKeyword }
        let keyword = Statement.leadingKeyword(of: sql)
        storedKeyword = keyword
        return keyword
    }

    /// The first keyword of `sql`, upper-cased, after white space and comments.
    package static func leadingKeyword(of sql: String) -> String {
        var rest = Substring(sql)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == ";" }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*"), let end = rest.range(of: "*/") {
                rest = rest[end.upperBound...]
            } else {
                break
            }
        }
        return rest.prefix { $0.isLetter }.uppercased()
    }

    /// Whether the statement leaves the database unchanged (`sqlite3_stmt_readonly`).
    package var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// The number of `?` / `:name` parameters.
    package var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// The name of parameter `index` (1-based), e.g. ":name", or nil for a plain `?`.
    package func parameterName(at index: Int32) -> String? {
        sqlite3_bind_parameter_name(handle, index).map { String(cString: $0) }
    }

    // MARK: - Binding

    /// Binds `values` to parameters 1...n, in order, as one binding round (``beginBinding()``). Throws if the
    /// count differs from the statement's.
    ///
    /// Text up to ``largeValueBytes`` long is copied into memory the statement owns and read there by SQLite
    /// (up to ``boundTextBytes`` in all), which saves SQLite an allocation and a free per text value. The
    /// copy stays until the next round binds every parameter again, so the statement can be stepped and
    /// reset as often as the caller likes in between. After a failed bind, the parameters hold NULL or
    /// earlier values until they are bound again.
    package func bind(_ values: [DatabaseValue]) throws(SQLiteError) {
        try bind(values, followedBy: 0)
    }

    /// Binds `values` to parameters 1...n, after checking that the statement has exactly `trailing` more
    /// parameters than that (bound by the caller).
    private func bind(_ values: [DatabaseValue], followedBy trailing: Int) throws(SQLiteError) {
        guard values.count + trailing == Int(parameterCount) else {
            throw SQLiteError(
                extendedCode: ResultCode.SQLITE_RANGE,
                message: "statement expects \(parameterCount) argument(s), got \(values.count + trailing)", sql: sql)
        }
        beginBinding()
        do throws(SQLiteError) {
            for (offset, value) in values.enumerated() { try bindInRound(value, at: Int32(offset + 1)) }
        } catch {
            abandonRound()
            throw error
        }
    }

    /// Starts a binding round: every parameter is bound again, by ``bindInRound(_:at:)``, before the
    /// statement next runs (or the round is given up with ``abandonRound()``). The text memory earlier
    /// rounds outgrew is freed now, and this round's text is copied over the last one's.
    package func beginBinding() {
        roundBindsInPlace = sqlite3_stmt_busy(handle) == 0
        guard roundBindsInPlace else { return }
        for buffer in retiredBoundText { buffer.deallocate() }
        retiredBoundText.removeAll(keepingCapacity: true)
        boundTextUsed = 0
        roundTextBytes = 0
    }

    /// Binds `value` to parameter `index` (1-based) in the round started by ``beginBinding()``: small text
    /// is copied into the statement's own memory (see ``bind(_:)``), other values are bound as by
    /// ``bind(_:at:)``.
    package func bindInRound(_ value: DatabaseValue, at index: Int32) throws(SQLiteError) {
        guard case .text(let string) = value else { return try bind(value, at: index) }
        try bindTextInRound(string, at: index)
    }

    /// Binds `string` to parameter `index` (1-based) in the round started by ``beginBinding()``, as
    /// ``bindInRound(_:at:)`` binds text.
    package func bindTextInRound(_ string: String, at index: Int32) throws(SQLiteError) {
        guard roundBindsInPlace else { return try bind(.text(string), at: index) }
        var string = string
        let code = string.withUTF8 { bytes -> Int32? in
            let count = bytes.count
            guard let source = bytes.baseAddress, count > 0, count <= Statement.largeValueBytes,
                roundTextBytes + count <= Statement.boundTextBytes
            else { return nil }
            let target = textMemory(for: count)
            target.copyMemory(from: source, byteCount: count)
            boundTextUsed += count
            roundTextBytes += count
            return sqlite3_bind_text64(
                handle, index, target.assumingMemoryBound(to: CChar.self), sqlite3_uint64(count), SQLITE_STATIC,
                UInt8(SQLITE_UTF8))
        }
        guard let code else { return try bind(.text(string), at: index) }  // empty, large, or over the round's limit
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Gives up the round started by ``beginBinding()`` before every parameter was bound: the parameters are
    /// cleared, since those not bound again may point into text memory the round freed.
    package func abandonRound() {
        if roundBindsInPlace { clearBindings() }
    }

    /// Where the next `count` bytes of this round's text go: in ``boundText``, or in a larger buffer that
    /// replaces it (the old one is retired, not freed: this round's earlier text is bound there).
    private func textMemory(for count: Int) -> UnsafeMutableRawPointer {
        if let boundText, boundText.count - boundTextUsed >= count { return boundText.baseAddress! + boundTextUsed }
        if let boundText { retiredBoundText.append(boundText) }
        let capacity = max(count, min(max(256, 2 * (boundText?.count ?? 0)), Statement.boundTextBytes))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        boundText = buffer
        boundTextUsed = 0
        return buffer.baseAddress!
    }

    /// Binds `value` to parameter `index` (1-based).
    package func bind(_ value: DatabaseValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        case .text(let string):
            code = bindText(string, at: index)
            if string.utf8.count > Statement.largeValueBytes { holdsLargeValue = true }
        case .blob(let data):
            code = bindBlob(data, at: index)
            if data.count > Statement.largeValueBytes { holdsLargeValue = true }
        }
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Binds a number without boxing it in a ``DatabaseValue``.
    package func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        let code = sqlite3_bind_double(handle, index, value)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Binds a 64-bit integer without boxing it in a ``DatabaseValue``.
    package func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        let code = sqlite3_bind_int64(handle, index, value)
        guard code == SQLITE_OK else { throw error(code) }
    }

    private func bindText(_ string: String, at index: Int32) -> Int32 {
        var string = string
        return string.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT)
            }
            // The 64-bit length: a value over SQLite's limit is SQLITE_TOOBIG, not a trap converting to Int32.
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(bytes.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
            }
        }
    }

    private func bindBlob(_ data: Data, at index: Int32) -> Int32 {
        guard !data.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
        return data.withUnsafeBytes { bytes in
            sqlite3_bind_blob64(handle, index, bytes.baseAddress, sqlite3_uint64(bytes.count), SQLITE_TRANSIENT)
        }
    }

    /// Sets every parameter back to NULL (`sqlite3_clear_bindings`).
    package func clearBindings() {
        holdsLargeValue = false
        sqlite3_clear_bindings(handle)
    }

    /// Clears the bindings if one holds a large copy (over ``largeValueBytes``), freeing it now rather than
    /// at the statement's next use. Kept, a bulk commit's 100 MB change-log payload was freed by whichever
    /// commit next used the statement, and that commit paid for unmapping it (7 ms measured). Small values
    /// stay bound: clearing them cost a `sqlite3_clear_bindings` call per run (ten per one-row commit).
    package func releaseLargeBindings() {
        if holdsLargeValue { clearBindings() }
    }

    // MARK: - Stepping

    /// Advances to the next row: true when a row is available, false when the statement is done.
    ///
    /// The corresponding C function is `sqlite3_step`.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        errno = 0  // so that the errno read after a failure is this step's (see SQLiteError.systemErrno)
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            // SQLite re-prepares a statement inside step after a schema change, and `SELECT *` may then have other
            // columns, as many as before or not (a column dropped and another added): its re-preparation count tells.
            // Checked once a row here, not at every column lookup.
            if columnIndexes != nil, sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0) != columnIndexesPreparation {
                columnIndexes = nil
            }
            return true
        case SQLITE_DONE: return false
        case let code:
            let threadErrno = errno  // before anything else can change it
            let failure = error(code, threadErrno: threadErrno)
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Rewinds the statement so it can run again; bindings are kept (`sqlite3_reset`).
    package func reset() {
        sqlite3_reset(handle)
    }

    /// Binds `arguments`, runs the statement to completion, resets it and releases large bindings
    /// (``releaseLargeBindings()``).
    package func execute(_ arguments: [DatabaseValue] = []) throws(SQLiteError) {
        sqlite3_reset(handle)
        try bind(arguments)
        defer {
            sqlite3_reset(handle)
            releaseLargeBindings()
        }
        while try step() {}
    }

    /// ``execute(_:)`` with one more parameter after `arguments`: `blob`, which SQLite reads in place
    /// (`SQLITE_STATIC`) instead of copying it. For large blobs: a commit's change-log payload is megabytes
    /// in a bulk write, and the copy (plus a `Data` to hold it) cost more than the insert.
    package func execute(_ arguments: [DatabaseValue], thenBlob blob: [UInt8]) throws(SQLiteError) {
        sqlite3_reset(handle)
        try bind(arguments, followedBy: 1)
        let blobIndex = Int32(arguments.count + 1)
        let failure = blob.withUnsafeBytes { bytes -> SQLiteError? in
            // Unbound before `bytes` stops being valid, on every path.
            defer {
                sqlite3_reset(handle)
                sqlite3_bind_null(handle, blobIndex)
                releaseLargeBindings()
            }
            let code =
                bytes.isEmpty
                ? sqlite3_bind_zeroblob(handle, blobIndex, 0)
                : sqlite3_bind_blob64(handle, blobIndex, bytes.baseAddress, sqlite3_uint64(bytes.count), nil)
            guard code == SQLITE_OK else { return error(code) }
            do throws(SQLiteError) {
                while try step() {}
            } catch {
                return error
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// The SQL with the current bindings written in (`sqlite3_expanded_sql`), to see what is bound.
    package var expandedSQL: String? {
        guard let text = sqlite3_expanded_sql(handle) else { return nil }
        defer { sqlite3_free(text) }
        return String(cString: text)
    }

    // MARK: - Columns

    /// The number of result columns.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of result column `index` (0-based).
    package func columnName(at index: Int32) -> String {
        String(cString: sqlite3_column_name(handle, index))
    }

    /// The result column names, in order.
    package var columnNames: [String] {
        (0..<columnCount).map { columnName(at: $0) }
    }

    /// The index of the result column called `name`, or nil. The first column of that name wins.
    ///
    /// Records usually ask for their columns in result order, so the column after the last one found is
    /// tried first (one string comparison), before the dictionary.
    package func columnIndex(named name: String) -> Int32? {
        // Built again after a re-preparation (``step()`` drops them then).
        if columnIndexes == nil {
            let preparation = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
            var indexes: [String: Int32] = [:]
            var names: [String?] = []
            for index in 0..<columnCount {
                let columnName = columnName(at: index)
                // Only a name's first column can be found by the hint ("the first column of that name wins").
                names.append(indexes[columnName] == nil ? columnName : nil)
                if indexes[columnName] == nil { indexes[columnName] = index }
            }
            columnIndexes = indexes
            orderedColumnNames = names
            columnIndexesPreparation = preparation
        }
        if !orderedColumnNames.isEmpty {
            let hint = nextColumnHint < orderedColumnNames.count ? nextColumnHint : 0
            if orderedColumnNames[hint] == name {
                nextColumnHint = hint + 1
                return Int32(hint)
            }
        }
        guard let index = columnIndexes?[name] else { return nil }
        nextColumnHint = Int(index) + 1
        return index
    }

    /// The storage class of the current row's column `index`.
    package func storageClass(at index: Int32) -> StorageClass {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Whether the current row's column `index` is NULL.
    package func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The current row's column `index` as an integer (SQLite converts other types).
    package func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The current row's column `index` as a double (SQLite converts other types).
    package func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The current row's column `index` as text; invalid UTF-8 is repaired with U+FFFD.
    package func text(at index: Int32) -> String {
        let value = sqlite3_column_value(handle, index)
        guard let pointer = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    // The typed reads below look the column up once (each `sqlite3_column_*` call looks it up again) and
    // return nil for a value of another storage class. Records read every column of every row through them.

    /// The current row's column `index` when it holds a number (INTEGER or REAL), as a `Double`; else nil.
    package func numberValue(at index: Int32) -> Double? {
        let value = sqlite3_column_value(handle, index)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_value_double(value)
        default: return nil
        }
    }

    /// The current row's column `index` when it holds an INTEGER, or a REAL with an exact `Int64` value; else nil.
    package func integerValue(at index: Int32) -> Int64? {
        let value = sqlite3_column_value(handle, index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value)
        case SQLITE_FLOAT: return Int64(exactly: sqlite3_value_double(value))
        default: return nil
        }
    }

    /// The current row's column `index` when it holds TEXT (invalid UTF-8 repaired with U+FFFD); else nil.
    package func textValue(at index: Int32) -> String? {
        withTextValue(at: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the current row's column `index` as UTF-8 bytes when it holds TEXT, without making
    /// a String; nil for any other storage class.
    package func withTextValue<R>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let value = sqlite3_column_value(handle, index)
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        let pointer = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        return body(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// Calls `body` with the current row's column `index` as SQLite holds it: the UTF-8 bytes of TEXT (unchecked,
    /// without a terminating NUL) or the bytes of a BLOB, valid only during the call; empty for other storage classes.
    package func withBytes<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let value = sqlite3_column_value(handle, index)
        let pointer: UnsafeRawPointer? =
            switch sqlite3_value_type(value) {
            case SQLITE_TEXT: sqlite3_value_text(value).map(UnsafeRawPointer.init)
            case SQLITE_BLOB: sqlite3_value_blob(value)
            default: nil
            }
        guard let pointer else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value))))
    }

    /// The current row's column `index` as bytes.
    package func blob(at index: Int32) -> Data {
        let value = sqlite3_column_value(handle, index)
        guard let pointer = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: pointer, count: Int(sqlite3_value_bytes(value)))
    }

    /// The current row's column `index`, in its own storage class.
    package func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(text(at: index))
        case SQLITE_BLOB: .blob(blob(at: index))
        default: .null
        }
    }

    /// The current row, every column in order.
    package func row() -> [DatabaseValue] {
        (0..<columnCount).map { value(at: $0) }
    }

    /// The declared type of result column `index` (e.g. "TEXT"), when it comes straight from a table column.
    package func declaredType(at index: Int32) -> String? {
        sqlite3_column_decltype(handle, index).map { String(cString: $0) }
    }

    /// The error of a call that returned `code`; `threadErrno` is the thread's errno right after a call that
    /// may write (0 for others).
    private func error(_ code: Int32, threadErrno: Int32 = 0) -> SQLiteError {
        let extended = sqlite3_extended_errcode(connection) == 0 ? code : sqlite3_extended_errcode(connection)
        let systemErrno = SQLiteError.systemErrno(
            reported: sqlite3_system_errno(connection), threadErrno: threadErrno, extendedCode: extended)
        return SQLiteError(
            extendedCode: extended, message: String(cString: sqlite3_errmsg(connection)), sql: sql, systemErrno: systemErrno)
    }
}
