#if PostgreSQL
import ObservableStoreCore
import StorePostgres

// The record API, with the SQLite `Transaction`'s names and signatures. Records are encoded and decoded by the core's
// coders; each value is bound for its column's type (``TableColumns``).
extension PostgresTransaction {
    /// Inserts `record` and returns it as stored: `didInsert(rowID:)` has set a key the table assigned (an identity or
    /// serial column: a record whose integer key is nil leaves it out of the insert).
    ///
    /// A constraint violation throws ``/ObservableStoreCore/StoreError/Code/constraint`` and writes nothing.
    @discardableResult
    public func insert<R: Record>(_ record: R) throws -> R {
        var record = record
        let row = try encoded(record)
        let key = row.value(of: R.primaryKey)
        let written = try bindings(of: row, for: R.self) { column, value in column != R.primaryKey || !value.isNull }
        let table = quoted(R.tableName)
        let sql =
            written.columns.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES RETURNING \(quoted(R.primaryKey))"
            : "INSERT INTO \(table) (\(written.columns.map(quoted).joined(separator: ", "))) "
                + "VALUES (\(written.placeholders.joined(separator: ", "))) RETURNING \(quoted(R.primaryKey))"
        let assigned = try run(sql, written.values).scalar
        if key?.isNull ?? true, case .integer(let id)? = assigned { record.didInsert(rowID: id) }
        return record
    }

    /// Inserts `record`, or, when a row with its primary key exists, updates that row's other columns
    /// (`INSERT … ON CONFLICT (pk) DO UPDATE`).
    @discardableResult
    public func upsert<R: Record>(_ record: R) throws -> R {
        var record = record
        let row = try encoded(record)
        let key = row.value(of: R.primaryKey)
        let written = try bindings(of: row, for: R.self) { column, value in column != R.primaryKey || !value.isNull }
        let updates = written.columns.filter { $0 != R.primaryKey }.map { "\(quoted($0)) = EXCLUDED.\(quoted($0))" }
        let sql =
            "INSERT INTO \(quoted(R.tableName)) (\(written.columns.map(quoted).joined(separator: ", "))) "
            + "VALUES (\(written.placeholders.joined(separator: ", "))) ON CONFLICT (\(quoted(R.primaryKey))) "
            + (updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", "))
            + " RETURNING \(quoted(R.primaryKey))"
        let assigned = try run(sql, written.values).scalar
        if key?.isNull ?? true, case .integer(let id)? = assigned { record.didInsert(rowID: id) }
        return record
    }

    /// Writes every column of `record` to the row with its primary key.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/notFound`` when no such row exists.
    public func update<R: Record>(_ record: R) throws {
        try update(try encoded(record), R.self)
    }

    /// Writes only `columns` of `record` to the row with its primary key; the row's other columns keep their stored
    /// values, and the change log's old and new images differ only there.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/invalidInput`` when `columns` is empty or names the primary key or a column
    /// the record does not write, and ``/ObservableStoreCore/StoreError/Code/notFound`` when no such row exists.
    public func update<R: Record>(_ record: R, columns: [String]) throws {
        guard !columns.isEmpty else {
            throw StoreError(.invalidInput, "\(R.tableName): update names no column to write")
        }
        let row = try encoded(record, only: columns + [R.primaryKey])
        if let unknown = columns.first(where: { $0 == R.primaryKey || !row.columns.contains($0) }) {
            let reason = unknown == R.primaryKey ? "is the primary key" : "is not a column the record writes"
            throw StoreError(.invalidInput, "\(R.tableName): cannot update column \(quoted(unknown)): it \(reason)")
        }
        try update(row, R.self)
    }

    /// Writes only `columns` of `record` to the row with its primary key, as the form taking their names does.
    public func update<R: Record>(_ record: R, columns: [R.Columns]) throws {
        try update(record, columns: columns.map(\.stringValue))
    }

    /// `UPDATE … SET` every column of `row` but the key, `WHERE` the key is `row`'s.
    private func update<R: Record>(_ row: EncodedRow, _ type: R.Type) throws {
        let key = try primaryKeyValue(of: row, R.self)
        let written = try bindings(of: row, for: R.self) { column, _ in column != R.primaryKey }
        guard !written.columns.isEmpty else { return }
        let columns = try tableColumns.columns(of: R.tableName, on: connection)
        let assignments = zip(written.columns, written.placeholders).map { "\(quoted($0)) = \($1)" }
        let sql =
            "UPDATE \(quoted(R.tableName)) SET \(assignments.joined(separator: ", ")) WHERE \(quoted(R.primaryKey)) = "
            + columns.placeholder(written.values.count + 1, for: R.primaryKey)
        let changed = try run(sql, written.values + [columns.bound(key, for: R.primaryKey)]).affectedRows
        guard changed > 0 else { throw StoreError.recordNotFound(table: R.tableName, key: key.keyText) }
    }

    /// Deletes the row with `record`'s primary key; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ record: R) throws -> Bool {
        try delete(R.self, key: try primaryKeyValue(of: try encoded(record), R.self))
    }

    /// Deletes the row whose primary key is `key`; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ type: R.Type, key: R.Key) throws -> Bool {
        try delete(R.self, key: key.databaseValue)
    }

    /// Deletes the row whose primary key is `key`, a value of any type; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> Bool {
        let columns = try tableColumns.columns(of: R.tableName, on: connection)
        let sql = "DELETE FROM \(quoted(R.tableName)) WHERE \(quoted(R.primaryKey)) = \(columns.placeholder(1, for: R.primaryKey))"
        return try run(sql, [columns.bound(key, for: R.primaryKey)]).affectedRows > 0
    }

    /// Deletes every record `query` selects; returns how many were deleted.
    @discardableResult
    public func deleteAll<R: Record>(_ query: Query<R>) throws -> Int {
        var renderer = try renderer(for: query)
        let whereSQL = try renderer.whereClause()
        let table = quoted(R.tableName)
        let sql: String
        if query.limitCount != nil || query.offsetCount != nil {
            let pk = quoted(R.primaryKey)
            sql = "DELETE FROM \(table) WHERE \(pk) IN (SELECT \(pk) FROM \(table)\(whereSQL)\(renderer.orderLimitClause()))"
        } else {
            sql = "DELETE FROM \(table)\(whereSQL)"
        }
        return try run(sql, renderer.values).affectedRows
    }

    /// The record whose primary key is `key`, or nil.
    public func fetch<R: Record>(_ type: R.Type, key: R.Key) throws -> R? {
        try fetch(R.self, key: key.databaseValue)
    }

    /// The record whose primary key is `key`, a value of any type, or nil.
    public func fetch<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> R? {
        let columns = try tableColumns.columns(of: R.tableName, on: connection)
        let sql =
            "SELECT \(PostgresTransaction.selection(R.self)) FROM \(quoted(R.tableName)) "
            + "WHERE \(quoted(R.primaryKey)) = \(columns.placeholder(1, for: R.primaryKey))"
        return try decode(R.self, run(sql, [columns.bound(key, for: R.primaryKey)])).first
    }

    /// Every record `query` selects, in its order.
    public func fetchAll<R: Record>(_ query: Query<R>) throws -> [R] {
        var renderer = try renderer(for: query)
        let whereSQL = try renderer.whereClause()
        let sql =
            "SELECT \(PostgresTransaction.selection(R.self)) FROM \(quoted(R.tableName))\(whereSQL)\(renderer.orderLimitClause())"
        return try decode(R.self, run(sql, renderer.values))
    }

    /// The first record `query` selects, or nil.
    public func fetchOne<R: Record>(_ query: Query<R>) throws -> R? {
        try fetchAll(query.limit(1)).first
    }

    /// How many records `query` selects.
    public func count<R: Record>(_ query: Query<R>) throws -> Int {
        var renderer = try renderer(for: query)
        let whereSQL = try renderer.whereClause()
        let table = quoted(R.tableName)
        var sql = "SELECT count(*) FROM \(table)\(whereSQL)"
        if query.limitCount != nil || query.offsetCount != nil {
            sql = "SELECT count(*) FROM (SELECT 1 FROM \(table)\(whereSQL)\(renderer.orderLimitClause())) AS selected"
        }
        guard case .integer(let count)? = try run(sql, renderer.values).scalar else { return 0 }
        return Int(count)
    }

    // MARK: - Helpers

    private func renderer<R: Record>(for query: Query<R>) throws -> QueryRenderer<R> {
        QueryRenderer(query, columns: try tableColumns.columns(of: R.tableName, on: connection))
    }

    private static func selection<R: Record>(_ type: R.Type) -> String {
        R.columns.map { $0.map(quoted).joined(separator: ", ") } ?? "*"
    }

    private func decode<R: Record>(_ type: R.Type, _ result: ServerResult) throws -> [R] {
        do {
            return try result.namedRows.map { try $0.decode(R.self) }
        } catch let error as StoreError {
            throw StoreError(error.code, "\(R.tableName): \(error.message)")
        }
    }

    private func encoded<R: Record>(_ record: R, only: [String]? = nil) throws -> EncodedRow {
        try RowEncoder.encode(record, only: only)
    }

    /// The columns of `row` that `keep` keeps, their values bound for the table's column types, and their placeholders
    /// (`$1`, `$2::timestamp with time zone`, …).
    private func bindings<R: Record>(
        of row: EncodedRow, for type: R.Type, keeping keep: (String, DatabaseValue) -> Bool
    ) throws -> (columns: [String], values: [DatabaseValue], placeholders: [String]) {
        let columns = try tableColumns.columns(of: R.tableName, on: connection)
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

    private func primaryKeyValue<R: Record>(of row: EncodedRow, _ type: R.Type) throws -> DatabaseValue {
        guard let key = row.value(of: R.primaryKey), !key.isNull else {
            throw StoreError(.invalidInput, "\(R.tableName): the record has no primary key value (\(R.primaryKey))")
        }
        return key
    }
}
#endif
