#if PostgreSQL
import ObservableStoreCore
import StorePostgres

// The record API, with the SQLite `SQLiteTransaction`'s names and signatures. Records are encoded and decoded by the core's
// coders; each value is bound for its column's type (``TableColumns``).
extension PostgresTransaction {
    /// Inserts `record` and returns it as stored: `didInsert(rowID:)` has set a key the table assigned (an identity or
    /// serial column: a record whose integer key is nil leaves it out of the insert).
    ///
    /// A constraint violation throws ``/ObservableStoreCore/StoreError/Code/constraint`` and writes nothing.
    @discardableResult
    public func insert<R: Record>(_ record: R) throws -> R {
        try perform(Self.insertion(of: record, onConflict: nil))
    }

    /// Inserts `record` and returns it as stored, as the blocking form does.
    @discardableResult
    nonisolated(nonsending) public func insert<R: Record>(_ record: R) async throws -> R {
        try await perform(Self.insertion(of: record, onConflict: nil))
    }

    /// Inserts `record`, or, when a row with its primary key exists, updates that row's other columns
    /// (`INSERT … ON CONFLICT (pk) DO UPDATE`).
    @discardableResult
    public func upsert<R: Record>(_ record: R) throws -> R {
        try perform(Self.insertion(of: record, onConflict: R.primaryKey))
    }

    /// Inserts or updates `record`, as the blocking form does.
    @discardableResult
    nonisolated(nonsending) public func upsert<R: Record>(_ record: R) async throws -> R {
        try await perform(Self.insertion(of: record, onConflict: R.primaryKey))
    }

    /// `INSERT` of `record` (`ON CONFLICT (key) DO UPDATE` the other columns when `key` is given), returning the
    /// record with the key the table assigned.
    private static func insertion<R: Record>(of record: R, onConflict key: String?) throws -> TransactionStatement<R> {
        let row = try encoded(record)
        let givenKey = row.value(of: R.primaryKey)
        return TransactionStatement(table: R.tableName) { columns in
            let written = bindings(of: row, for: columns) { column, value in column != R.primaryKey || !value.isNull }
            let table = quoted(R.tableName)
            var sql =
                written.columns.isEmpty && key == nil
                ? "INSERT INTO \(table) DEFAULT VALUES"
                : "INSERT INTO \(table) (\(written.columns.map(quoted).joined(separator: ", "))) "
                    + "VALUES (\(written.placeholders.joined(separator: ", ")))"
            if let key {
                let updates = written.columns.filter { $0 != key }.map { "\(quoted($0)) = EXCLUDED.\(quoted($0))" }
                sql += " ON CONFLICT (\(quoted(key))) " + (updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", "))
            }
            return (sql + " RETURNING \(quoted(R.primaryKey))", written.values)
        } finish: { result in
            var record = record
            if givenKey?.isNull ?? true, case .integer(let id)? = result.scalar { record.didInsert(rowID: id) }
            return record
        }
    }

    /// Writes every column of `record` to the row with its primary key.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/notFound`` when no such row exists.
    public func update<R: Record>(_ record: R) throws {
        try perform(Self.update(try Self.encoded(record), R.self))
    }

    /// Writes every column of `record` to the row with its primary key, as the blocking form does.
    nonisolated(nonsending) public func update<R: Record>(_ record: R) async throws {
        try await perform(Self.update(try Self.encoded(record), R.self))
    }

    /// Writes only `columns` of `record` to the row with its primary key; the row's other columns keep their stored
    /// values, and the change log's old and new images differ only there.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/invalidInput`` when `columns` is empty or names the primary key or a column
    /// the record does not write, and ``/ObservableStoreCore/StoreError/Code/notFound`` when no such row exists.
    public func update<R: Record>(_ record: R, columns: [String]) throws {
        try perform(Self.update(try RowEncoder.encodeForUpdate(record, columns: columns), R.self))
    }

    /// Writes only `columns` of `record`, as the blocking form does.
    nonisolated(nonsending) public func update<R: Record>(_ record: R, columns: [String]) async throws {
        try await perform(Self.update(try RowEncoder.encodeForUpdate(record, columns: columns), R.self))
    }

    /// Writes only `columns` of `record` to the row with its primary key, as the form taking their names does.
    public func update<R: Record>(_ record: R, columns: [R.Columns]) throws {
        try update(record, columns: columns.map(\.stringValue))
    }

    /// Writes only `columns` of `record`, as the form taking their names does.
    nonisolated(nonsending) public func update<R: Record>(_ record: R, columns: [R.Columns]) async throws {
        try await update(record, columns: columns.map(\.stringValue))
    }


    /// `UPDATE … SET` every column of `row` but the key, `WHERE` the key is `row`'s; throws when no row has it. A row
    /// with no column but the key runs `SELECT 1` (nothing to write, and nothing checked).
    private static func update<R: Record>(_ row: EncodedRow, _ type: R.Type) throws -> TransactionStatement<Void> {
        let key = try primaryKeyValue(of: row, R.self)
        var writesNothing = false
        return TransactionStatement(table: R.tableName) { columns in
            let written = bindings(of: row, for: columns) { column, _ in column != R.primaryKey }
            guard !written.columns.isEmpty else {
                writesNothing = true
                return ("SELECT 1", [])
            }
            let assignments = zip(written.columns, written.placeholders).map { "\(quoted($0)) = \($1)" }
            let sql =
                "UPDATE \(quoted(R.tableName)) SET \(assignments.joined(separator: ", ")) WHERE \(quoted(R.primaryKey)) = "
                + columns.placeholder(written.values.count + 1, for: R.primaryKey)
            return (sql, written.values + [columns.bound(key, for: R.primaryKey)])
        } finish: { result in
            guard writesNothing || result.affectedRows > 0 else { throw StoreError.recordNotFound(table: R.tableName, key: key.keyText) }
        }
    }

    /// Deletes the row with `record`'s primary key; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ record: R) throws -> Bool {
        try perform(Self.deletion(R.self, key: try Self.primaryKeyValue(of: try Self.encoded(record), R.self)))
    }

    /// Deletes the row with `record`'s primary key, as the blocking form does.
    @discardableResult
    nonisolated(nonsending) public func delete<R: Record>(_ record: R) async throws -> Bool {
        try await perform(Self.deletion(R.self, key: try Self.primaryKeyValue(of: try Self.encoded(record), R.self)))
    }

    /// Deletes the row whose primary key is `key`; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ type: R.Type, key: R.Key) throws -> Bool {
        try perform(Self.deletion(R.self, key: key.databaseValue))
    }

    /// Deletes the row whose primary key is `key`, as the blocking form does.
    @discardableResult
    nonisolated(nonsending) public func delete<R: Record>(_ type: R.Type, key: R.Key) async throws -> Bool {
        try await perform(Self.deletion(R.self, key: key.databaseValue))
    }

    /// Deletes the row whose primary key is `key`, a value of any type; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> Bool {
        try perform(Self.deletion(R.self, key: key))
    }

    /// Deletes the row whose primary key is `key`, a value of any type, as the blocking form does.
    @discardableResult
    nonisolated(nonsending) public func delete<R: Record>(_ type: R.Type, key: DatabaseValue) async throws -> Bool {
        try await perform(Self.deletion(R.self, key: key))
    }

    private static func deletion<R: Record>(_ type: R.Type, key: DatabaseValue) -> TransactionStatement<Bool> {
        TransactionStatement(table: R.tableName) { columns in
            let sql = "DELETE FROM \(quoted(R.tableName)) WHERE \(quoted(R.primaryKey)) = \(columns.placeholder(1, for: R.primaryKey))"
            return (sql, [columns.bound(key, for: R.primaryKey)])
        } finish: { $0.affectedRows > 0 }
    }

    /// Deletes every record `query` selects; returns how many were deleted.
    @discardableResult
    public func deleteAll<R: Record>(_ query: RecordQuery<R>) throws -> Int {
        try perform(Self.deletion(query))
    }

    /// Deletes every record `query` selects, as the blocking form does.
    @discardableResult
    nonisolated(nonsending) public func deleteAll<R: Record>(_ query: RecordQuery<R>) async throws -> Int {
        try await perform(Self.deletion(query))
    }

    private static func deletion<R: Record>(_ query: RecordQuery<R>) -> TransactionStatement<Int> {
        TransactionStatement(table: R.tableName) { columns in
            var renderer = QueryRenderer(query, columns: columns)
            let whereSQL = try renderer.whereClause()
            let table = quoted(R.tableName)
            guard query.limitCount != nil || query.offsetCount != nil else { return ("DELETE FROM \(table)\(whereSQL)", renderer.values) }
            let pk = quoted(R.primaryKey)
            let sql = "DELETE FROM \(table) WHERE \(pk) IN (SELECT \(pk) FROM \(table)\(whereSQL)\(renderer.orderLimitClause()))"
            return (sql, renderer.values)
        } finish: { $0.affectedRows }
    }

    /// The record whose primary key is `key`, or nil.
    public func fetch<R: Record>(_ type: R.Type, key: R.Key) throws -> R? {
        try perform(Self.lookup(R.self, key: key.databaseValue))
    }

    /// The record whose primary key is `key`, or nil, as the blocking form returns it.
    nonisolated(nonsending) public func fetch<R: Record>(_ type: R.Type, key: R.Key) async throws -> R? {
        try await perform(Self.lookup(R.self, key: key.databaseValue))
    }

    /// The record whose primary key is `key`, a value of any type, or nil.
    public func fetch<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> R? {
        try perform(Self.lookup(R.self, key: key))
    }

    /// The record whose primary key is `key`, a value of any type, as the blocking form returns it.
    nonisolated(nonsending) public func fetch<R: Record>(_ type: R.Type, key: DatabaseValue) async throws -> R? {
        try await perform(Self.lookup(R.self, key: key))
    }

    private static func lookup<R: Record>(_ type: R.Type, key: DatabaseValue) -> TransactionStatement<R?> {
        TransactionStatement(table: R.tableName) { columns in
            let sql =
                "SELECT \(selection(R.self)) FROM \(quoted(R.tableName)) "
                + "WHERE \(quoted(R.primaryKey)) = \(columns.placeholder(1, for: R.primaryKey))"
            return (sql, [columns.bound(key, for: R.primaryKey)])
        } finish: { try decode(R.self, $0).first }
    }

    /// Every record `query` selects, in its order.
    public func fetchAll<R: Record>(_ query: RecordQuery<R>) throws -> [R] {
        try perform(Self.selection(query))
    }

    /// Every record `query` selects, in its order, as the blocking form returns them.
    nonisolated(nonsending) public func fetchAll<R: Record>(_ query: RecordQuery<R>) async throws -> [R] {
        try await perform(Self.selection(query))
    }

    /// The first record `query` selects, or nil.
    public func fetchOne<R: Record>(_ query: RecordQuery<R>) throws -> R? {
        try fetchAll(query.limit(1)).first
    }

    /// The first record `query` selects, or nil, as the blocking form returns it.
    nonisolated(nonsending) public func fetchOne<R: Record>(_ query: RecordQuery<R>) async throws -> R? {
        try await fetchAll(query.limit(1)).first
    }

    private static func selection<R: Record>(_ query: RecordQuery<R>) -> TransactionStatement<[R]> {
        TransactionStatement(table: R.tableName) { columns in
            var renderer = QueryRenderer(query, columns: columns)
            let whereSQL = try renderer.whereClause()
            let sql = "SELECT \(selection(R.self)) FROM \(quoted(R.tableName))\(whereSQL)\(renderer.orderLimitClause())"
            return (sql, renderer.values)
        } finish: { try decode(R.self, $0) }
    }

    /// How many records `query` selects.
    public func count<R: Record>(_ query: RecordQuery<R>) throws -> Int {
        try perform(Self.counting(query))
    }

    /// How many records `query` selects, as the blocking form counts them.
    nonisolated(nonsending) public func count<R: Record>(_ query: RecordQuery<R>) async throws -> Int {
        try await perform(Self.counting(query))
    }

    private static func counting<R: Record>(_ query: RecordQuery<R>) -> TransactionStatement<Int> {
        TransactionStatement(table: R.tableName) { columns in
            var renderer = QueryRenderer(query, columns: columns)
            let whereSQL = try renderer.whereClause()
            let table = quoted(R.tableName)
            guard query.limitCount != nil || query.offsetCount != nil else { return ("SELECT count(*) FROM \(table)\(whereSQL)", renderer.values) }
            return ("SELECT count(*) FROM (SELECT 1 FROM \(table)\(whereSQL)\(renderer.orderLimitClause())) AS selected", renderer.values)
        } finish: { result in
            guard case .integer(let count)? = result.scalar else { return 0 }
            return Int(count)
        }
    }

    // MARK: - Helpers

    private static func selection<R: Record>(_ type: R.Type) -> String {
        R.columns.map { $0.map(quoted).joined(separator: ", ") } ?? "*"
    }

    private static func decode<R: Record>(_ type: R.Type, _ result: ServerResult) throws -> [R] {
        do {
            return try result.namedRows.map { try $0.decode(R.self) }
        } catch let error as StoreError {
            throw StoreError(error.code, "\(R.tableName): \(error.message)")
        }
    }

    private static func encoded<R: Record>(_ record: R, only: [String]? = nil) throws -> EncodedRow {
        try RowEncoder.encode(record, only: only)
    }

    /// The columns of `row` that `keep` keeps, their values bound for the table's column types, and their placeholders
    /// (`$1`, `$2::timestamp with time zone`, …).
    private static func bindings(
        of row: EncodedRow, for columns: TableColumns, keeping keep: (String, DatabaseValue) -> Bool
    ) -> (columns: [String], values: [DatabaseValue], placeholders: [String]) {
        var names: [String] = []
        var values: [DatabaseValue] = []
        var placeholders: [String] = []
        for (column, value) in zip(row.columns, row.values) where keep(column, value) {
            names.append(column)
            values.append(columns.bound(value, for: column))
            placeholders.append(columns.placeholder(values.count, for: column))
        }
        return (names, values, placeholders)
    }

    private static func primaryKeyValue<R: Record>(of row: EncodedRow, _ type: R.Type) throws -> DatabaseValue {
        guard let key = row.value(of: R.primaryKey), !key.isNull else {
            throw StoreError(.invalidInput, "\(R.tableName): the record has no primary key value (\(R.primaryKey))")
        }
        return key
    }
}
#endif
