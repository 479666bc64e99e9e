import ObservableStoreCore
import StoreSQLite

extension SQLiteTransaction {
    /// Runs one statement (prepared once, then cached) with `values` bound to its parameters in order, and
    /// returns how many rows it changed. Like ``execute(_:_:)`` without boxing each value: for bulk imports.
    @discardableResult
    package func execute(_ sql: String, values: [DatabaseValue]) throws -> Int {
        try withStatement(sql, values) { statement in
            while try statement.step() {}
            return connection.changes
        }
    }

    /// The first column of the first row of a query with `values` bound in order, or nil when there is no row.
    package func fetchValue(_ sql: String, values: [DatabaseValue]) throws -> DatabaseValue? {
        try withStatement(sql, values) { statement in
            try statement.step() ? statement.value(at: 0) : nil
        }
    }
}
