import ObservableStoreCore
import StoreSQLite

extension SQLiteTransaction {
    /// Inserts `record` and returns it as stored: `didInsert(rowID:)` has set an auto-assigned key.
    ///
    /// A constraint violation throws ``/ObservableStoreCore/StoreError/Code/constraint`` and writes nothing.
    @discardableResult
    public func insert<R: Record>(_ record: R) throws -> R {
        var record = record
        if try !insertBindingDirectly(record) {
            let row = try encoded(record)
            let sql = RecordStatements.texts.sql(for: R.self, .insert, columns: row.columns) {
                "INSERT INTO \(quoted(R.tableName)) (\(row.columns.map(quoted).joined(separator: ", "))) "
                    + "VALUES (\(placeholders(row.columns.count)))"
            }
            try withStatement(sql, row.values) { statement in
                while try statement.step() {}
            }
        }
        record.didInsert(rowID: connection.lastInsertRowID)
        return record
    }

    /// Inserts a ``/ObservableStoreCore/RowEncodable`` record by binding its values straight into the insert statement of its
    /// type's last insert: no row of values in between (its arrays cost ~7% of a bulk insert). Returns
    /// false, having inserted nothing, when the type is not `RowEncodable`, has not inserted yet, or the
    /// record writes other columns than that statement's (the caller inserts it the general way then).
    private func insertBindingDirectly<R: Record>(_ record: R) throws -> Bool {
        guard let known = lastInsertStatement(of: R.self) else { return false }
        let inserted = try runBindingDirectly(record, into: known)
        if !inserted { recordStatements?.insert = nil }  // the general insert caches its columns: ask again next time
        return inserted
    }

    /// The insert statement of `R`'s last insert, when `R` is ``/ObservableStoreCore/RowEncodable``: the writer's
    /// ``RecordStatements``, else the shared ``RecordStatements/texts``'s entry (then kept as the writer's) if it
    /// prepares here: another store of the process may have made it for a table with other columns.
    private func lastInsertStatement<R: Record>(of type: R.Type) -> RecordStatements.Entry? {
        let id = ObjectIdentifier(R.self)
        if let entry = recordStatements?.insert, entry.type == id { return entry }
        guard let encodable = R.self as? any RowEncodable.Type,
            let known = RecordStatements.texts.entry(for: R.self, .insert),
            (try? connection.cachedStatement(known.sql)) != nil
        else { return nil }
        let entry = RecordStatements.Entry(
            type: id, encodable: encodable, columns: known.columns, parameters: nil, keyParameter: 0, sql: known.sql)
        recordStatements?.insert = entry
        return entry
    }

    /// Binds `record`'s values straight into `known`'s statement and runs it. Returns false, having run
    /// nothing, when the record writes other columns than `known` expects, or no key for an update's.
    private func runBindingDirectly<R: Record>(_ record: R, into known: RecordStatements.Entry) throws -> Bool {
        try withStatement(known.sql, binding: { _ in }) { statement in
            statement.beginBinding()
            var writer = RowWriter(
                binding: statement, columns: known.columns, parameters: known.parameters,
                nonNullParameter: known.keyParameter, timestamps: timestamps)
            RowEncoder.write(record, as: known.encodable, into: &writer)
            guard writer.boundEveryColumn else {
                statement.abandonRound()
                if let error = writer.bindingError { throw error }
                return false
            }
            while try statement.step() {}
            return true
        }
    }

    /// Inserts `record`, or, when a row with its primary key exists, updates that row's other columns
    /// (`INSERT … ON CONFLICT(pk) DO UPDATE`; never `INSERT OR REPLACE`, which deletes the old row).
    @discardableResult
    public func upsert<R: Record>(_ record: R) throws -> R {
        var record = record
        let row = try encoded(record)
        let sql = RecordStatements.texts.sql(for: R.self, .upsert, columns: row.columns) {
            let updates = row.columns.filter { $0 != R.primaryKey }.map { "\(quoted($0)) = excluded.\(quoted($0))" }
            return "INSERT INTO \(quoted(R.tableName)) (\(row.columns.map(quoted).joined(separator: ", "))) "
                + "VALUES (\(placeholders(row.columns.count))) ON CONFLICT(\(quoted(R.primaryKey))) "
                + (updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", "))
        }
        try withStatement(sql, row.values) { statement in
            while try statement.step() {}
        }
        if row.value(of: R.primaryKey)?.isNull ?? true {
            record.didInsert(rowID: connection.lastInsertRowID)
        }
        return record
    }

    /// Writes every column of `record` to the row with its primary key.
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/notFound`` when no such row exists.
    public func update<R: Record>(_ record: R) throws {
        if try updateBindingDirectly(record, columns: nil) { return }
        try update(try encoded(record), kind: .update, R.self)
        keepUpdateStatement(of: record, columns: nil)
    }

    /// Writes only `columns` of `record` to the row with its primary key; the row's other columns keep
    /// their stored values. Cheaper than ``update(_:)`` when a few columns change, and the change log
    /// records only those columns as changed.
    ///
    /// ```swift
    /// node.x += 10
    /// try tx.update(node, columns: ["x"])
    /// ```
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/invalidInput`` when `columns` is empty or names the primary key or a column
    /// the record does not write, and ``/ObservableStoreCore/StoreError/Code/notFound`` when no such row exists.
    public func update<R: Record>(_ record: R, columns: [String]) throws {
        if try updateBindingDirectly(record, columns: columns) { return }
        let row = try RowEncoder.encodeForUpdate(record, columns: columns, timestamps: timestamps)
        try update(row, kind: .updateColumns, R.self)
        keepUpdateStatement(of: record, columns: columns)
    }

    /// Writes only `columns` of `record` to the row with its primary key, as the form taking their names does.
    ///
    /// ```swift
    /// node.x += 10
    /// try tx.update(node, columns: [.x, .updatedAt])
    /// ```
    public func update<R: Record>(_ record: R, columns: [R.Columns]) throws {
        try update(record, columns: columns.map(\.stringValue))
    }

    /// `UPDATE … SET` every column of `row` but the key `WHERE` the key is `row`'s.
    private func update<R: Record>(_ row: EncodedRow, kind: RecordStatements.Texts.Kind, _ type: R.Type) throws {
        let key = try primaryKeyValue(of: row, R.self)
        var arguments: [DatabaseValue] = []
        arguments.reserveCapacity(row.values.count)
        for (column, value) in zip(row.columns, row.values) where column != R.primaryKey {
            arguments.append(value)
        }
        guard !arguments.isEmpty else { return }
        arguments.append(key)
        let sql = RecordStatements.texts.sql(for: R.self, kind, columns: row.columns) {
            updateSQL(R.self, setting: row.columns.filter { $0 != R.primaryKey })
        }
        try withStatement(sql, arguments) { statement in
            while try statement.step() {}
        }
        guard connection.changes > 0 else {
            throw StoreError.recordNotFound(table: R.tableName, key: key.keyText)
        }
    }

    private func updateSQL<R: Record>(_ type: R.Type, setting columns: [String]) -> String {
        let assignments = columns.map { "\(quoted($0)) = ?" }
        return "UPDATE \(quoted(R.tableName)) SET \(assignments.joined(separator: ", ")) WHERE \(quoted(R.primaryKey)) = ?"
    }

    /// Updates a ``/ObservableStoreCore/RowEncodable`` record by binding its values straight into the statement an earlier update
    /// of its type and `columns` (nil: all) used: no row of values in between. Returns false, having
    /// updated nothing, when no such statement is kept or the record writes other columns than it did or no
    /// key (the caller updates it the general way then, with its checks: they passed for the kept one).
    private func updateBindingDirectly<R: Record>(_ record: R, columns: [String]?) throws -> Bool {
        let id = ObjectIdentifier(R.self)
        guard let recent = recordStatements, let known = recent.update(of: id, requested: columns) else { return false }
        guard try runBindingDirectly(record, into: known) else {
            recent.forgetUpdate(of: id, requested: columns)
            return false
        }
        guard connection.changes > 0 else {
            // No such row; its key as the general update reports it.
            let key = try primaryKeyValue(of: try encoded(record), R.self)
            throw StoreError.recordNotFound(table: R.tableName, key: key.keyText)
        }
        return true
    }

    /// After a general update of `record` wrote `columns` (nil: all), keeps its statement for the next update
    /// of the same type and columns to bind straight into, when the type is ``/ObservableStoreCore/RowEncodable``.
    private func keepUpdateStatement<R: Record>(of record: R, columns: [String]?) {
        guard let recent = recordStatements, let encodable = R.self as? any RowEncodable.Type,
            let written = try? encoded(record).columns,
            Set(written).count == written.count  // a column written twice: leave it to the general update
        else { return }
        let setting = written.filter { $0 != R.primaryKey && (columns?.contains($0) ?? true) }
        guard !setting.isEmpty else { return }  // nothing to set: the general update does nothing
        let parameters = written.map { column -> Int32 in
            if column == R.primaryKey { return Int32(setting.count + 1) }
            return setting.firstIndex(of: column).map { Int32($0 + 1) } ?? 0
        }
        let entry = RecordStatements.Entry(
            type: ObjectIdentifier(R.self), encodable: encodable, columns: written, parameters: parameters,
            keyParameter: Int32(setting.count + 1), sql: updateSQL(R.self, setting: setting))
        recent.keepUpdate(entry, requested: columns)
    }

    /// Deletes the row with `record`'s primary key; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ record: R) throws -> Bool {
        let key = try primaryKeyValue(of: try encoded(record), R.self)
        return try delete(R.self, key: key)
    }

    /// Deletes the row whose primary key is `key`; returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ type: R.Type, key: R.Key) throws -> Bool {
        try delete(R.self, key: key.databaseValue)
    }

    /// Deletes the row whose primary key is `key`, a value of any type (for callers that only know the key at
    /// run time); returns whether a row was deleted.
    @discardableResult
    public func delete<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> Bool {
        let sql = "DELETE FROM \(quoted(R.tableName)) WHERE \(quoted(R.primaryKey)) = ?"
        try withStatement(sql, [key.databaseValue]) { statement in
            while try statement.step() {}
        }
        return connection.changes > 0
    }

    /// Deletes every record `query` selects; returns how many were deleted.
    @discardableResult
    public func deleteAll<R: Record>(_ query: RecordQuery<R>) throws -> Int {
        let (whereSQL, arguments) = try query.whereClause()
        let sql: String
        if query.limitCount != nil || query.offsetCount != nil {
            let pk = quoted(R.primaryKey)
            sql =
                "DELETE FROM \(quoted(R.tableName)) WHERE \(pk) IN (SELECT \(pk) FROM \(quoted(R.tableName))"
                + whereSQL + query.orderLimitClause() + ")"
        } else {
            sql = "DELETE FROM \(quoted(R.tableName))" + whereSQL
        }
        try withStatement(sql, arguments) { statement in
            while try statement.step() {}
        }
        return connection.changes
    }

    /// The record whose primary key is `key`, or nil.
    public func fetch<R: Record>(_ type: R.Type, key: R.Key) throws -> R? {
        try checkActive()
        return try SQLiteTransaction.fetch(R.self, key: key, on: connection)
    }

    /// The record whose primary key is `key`, a value of any type (for callers that only know the key at run
    /// time), or nil.
    public func fetch<R: Record>(_ type: R.Type, key: DatabaseValue) throws -> R? {
        try checkActive()
        return try SQLiteTransaction.fetch(R.self, key: key, on: connection)
    }

    /// The record of `type` with primary key `key` read on `connection`, or nil. The statement is a query
    /// the store builds, so there is nothing to ``inspect(_:)``.
    static func fetch<R: Record>(_ type: R.Type, key: some DatabaseValueConvertible, on connection: Connection) throws -> R? {
        // No `withStatement` here: a closure returning `R?` makes Swift look that type up on every call.
        let statement = try StoreError.wrapping {
            try connection.cachedStatement(StatementName(R.self, "fetch by key")) {
                "SELECT \(selection(R.self)) FROM \(quoted(R.tableName)) WHERE \(quoted(R.primaryKey)) = ?"
            }
        }
        defer { finish(statement) }
        try StoreError.wrapping { try statement.bind(key.databaseValue, at: 1) }
        guard try StoreError.wrapping({ try statement.step() }) else { return nil }
        return try RowFetcher.decode(R.self, from: statement, table: R.tableName)
    }

    /// Every record `query` selects, in its order.
    public func fetchAll<R: Record>(_ query: RecordQuery<R>) throws -> [R] {
        let (whereSQL, arguments) = try query.whereClause()
        let sql = "SELECT \(SQLiteTransaction.selection(R.self)) FROM \(quoted(R.tableName))" + whereSQL + query.orderLimitClause()
        return try withStatement(sql, arguments) { statement in
            try RowFetcher.decodeAll(R.self, from: statement, table: R.tableName)
        }
    }

    /// The first record `query` selects, or nil.
    public func fetchOne<R: Record>(_ query: RecordQuery<R>) throws -> R? {
        try fetchAll(query.limit(1)).first
    }

    /// How many records `query` selects.
    public func count<R: Record>(_ query: RecordQuery<R>) throws -> Int {
        let (whereSQL, arguments) = try query.whereClause()
        var sql = "SELECT count(*) FROM \(quoted(R.tableName))" + whereSQL
        if query.limitCount != nil || query.offsetCount != nil {
            sql = "SELECT count(*) FROM (SELECT 1 FROM \(quoted(R.tableName))" + whereSQL + query.orderLimitClause() + ")"
        }
        return try withStatement(sql, arguments) { statement in
            try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    private static func selection<R: Record>(_ type: R.Type) -> String {
        R.columns.map { $0.map(quoted).joined(separator: ", ") } ?? "*"
    }

    /// `record`'s row, its dates formatted through the writer's cache (``timestamps``).
    private func encoded<R: Record>(_ record: R, only: [String]? = nil) throws -> EncodedRow {
        try RowEncoder.encode(record, only: only, timestamps: timestamps)
    }

    private func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    private func primaryKeyValue<R: Record>(of row: EncodedRow, _ type: R.Type) throws -> DatabaseValue {
        guard let key = row.value(of: R.primaryKey), !key.isNull else {
            throw StoreError(.invalidInput, "\(R.tableName): the record has no primary key value (\(R.primaryKey))")
        }
        return key
    }
}
