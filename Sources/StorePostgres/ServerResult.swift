#if PostgreSQL
import ObservableStoreCore
import PostgresNIO

/// The rows a statement returned, as the core's values, and how many rows it changed.
package struct ServerResult: Sendable {
    /// The result's column names (empty when it returned no row: the server describes columns per row here).
    package var columns: [String]
    /// The rows, each as many values as ``columns``.
    package var rows: [[DatabaseValue]]
    /// Rows inserted, updated or deleted (0 for other statements).
    package var affectedRows: Int

    init(_ result: PostgresQueryResult) throws {
        var columns: [String] = []
        var rows: [[DatabaseValue]] = []
        for row in result.rows {
            if columns.isEmpty { columns = row.map(\.columnName) }
            rows.append(try row.map { try ServerValueCodec.value(of: $0) })
        }
        self.columns = columns
        self.rows = rows
        self.affectedRows = result.metadata.rows ?? 0
    }

    /// The rows as the core's ``Row`` values.
    package var namedRows: [Row] {
        rows.map { Row(columns: columns, values: $0) }
    }

    /// The first column of the first row, or nil when there is none.
    package var scalar: DatabaseValue? {
        rows.first?.first
    }
}
#endif
