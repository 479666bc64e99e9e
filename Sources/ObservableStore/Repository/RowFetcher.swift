import ObservableStoreCore
import StoreSQLite

/// Rows out of a stepped statement: as ``/ObservableStoreCore/Row`` values, or decoded as records (through
/// ``/ObservableStoreCore/RowDecodable`` when the type conforms, straight from the statement; else through
/// `Decodable`).
enum RowFetcher {
    /// Steps `statement` to its end and returns its rows. The column names are read after a step, not before:
    /// SQLite re-prepares a statement inside its first step when the schema changed since it was prepared (by
    /// this process or another), and `SELECT *` then has other columns.
    static func rows(of statement: Statement) throws(SQLiteError) -> [Row] {
        var columns: [String] = []
        var rows: [Row] = []
        while try statement.step() {
            let values = statement.row()
            if rows.isEmpty || values.count != columns.count { columns = statement.columnNames }
            rows.append(Row(columns: columns, values: values))
        }
        return rows
    }

    /// Steps `statement` to its end and decodes each row as a `T`: with ``/ObservableStoreCore/RowDecodable``
    /// when `T` conforms, else with `Decodable`. A row that does not decode throws, naming `table`.
    static func decodeAll<T: Decodable>(_ type: T.Type, from statement: Statement, table: String?) throws -> [T] {
        if let readable = T.self as? any RowDecodable.Type {
            return try decodeAllFast(type, as: readable, from: statement, table: table)
        }
        var results: [T] = []
        while try statement.step() {
            results.append(try RowFetcher.decode(type, from: statement, table: table))
        }
        return results
    }

    /// Decodes the current row: with ``/ObservableStoreCore/RowDecodable`` when `T` conforms, else with `Decodable`.
    static func decode<T: Decodable>(_ type: T.Type, from statement: Statement, table: String?) throws -> T {
        do {
            if let readable = T.self as? any RowDecodable.Type {
                return try RowFetcher.decodeFast(type, as: readable, from: statement)
            }
            return try RowDecoder.decode(type, from: statement)
        } catch let error as DecodingError {
            throw RowFetcher.decodingFailed(T.self, table: table, error)
        }
    }

    /// Every row through `Fast`'s ``/ObservableStoreCore/RowDecodable`` initializer; `Fast` is `T` (the caller's cast opened it).
    private static func decodeAllFast<T, Fast: RowDecodable>(
        _ type: T.Type, as fast: Fast.Type, from statement: Statement, table: String?
    ) throws -> [T] {
        assert(Fast.self == T.self)
        var results: [Fast] = []
        do {
            while try statement.step() {
                results.append(try Fast(row: RowReader(reader: StatementRowReader(statement))))
            }
        } catch let error as DecodingError {
            throw RowFetcher.decodingFailed(T.self, table: table, error)
        }
        // Same type: hand the array over without copying each element through an existential box.
        return unsafeBitCast(results, to: [T].self)
    }

    /// One row through `Fast`'s ``/ObservableStoreCore/RowDecodable`` initializer; `Fast` is `T`.
    private static func decodeFast<T, Fast: RowDecodable>(_ type: T.Type, as fast: Fast.Type, from statement: Statement) throws -> T {
        let value = try Fast(row: RowReader(reader: StatementRowReader(statement)))
        return withUnsafePointer(to: value) { $0.withMemoryRebound(to: T.self, capacity: 1) { $0.pointee } }
    }

    private static func decodingFailed(_ type: Any.Type, table: String?, _ error: DecodingError) -> StoreError {
        StoreError(.invalidInput, "cannot decode \(type)\(table.map { " from \($0)" } ?? ""): \(error.summary)")
    }
}
