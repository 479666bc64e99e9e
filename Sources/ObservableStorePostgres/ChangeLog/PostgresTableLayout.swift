#if PostgreSQL
import ObservableStoreCore
import StorePostgres
import Synchronization

/// What the change log's reader needs to know of a captured table: its columns in order, how each one's JSON value
/// reads (``PostgresRowImage``), and its primary key.
struct PostgresTableLayout: Sendable {
    /// How a column's value is read from a row image.
    enum Kind: Sendable {
        /// `int2`, `int4`, `int8`, `oid`.
        case integer
        /// `float4`, `float8`, `numeric`.
        case real
        /// `bytea`.
        case blob
        /// `timestamptz`, `timestamp`, `date`.
        case date
        /// `uuid`: upper case, as the client layer reads it.
        case uuid
        /// Everything else (text, JSON, …).
        case text

        /// The kind of a column of type `typeName` (`pg_type.typname`).
        init(typeName: String) {
            switch typeName {
            case "int2", "int4", "int8", "oid": self = .integer
            case "float4", "float8", "numeric": self = .real
            case "bytea": self = .blob
            case "timestamptz", "timestamp", "date": self = .date
            case "uuid": self = .uuid
            default: self = .text
            }
        }
    }

    /// One column.
    struct Column: Sendable {
        let name: String
        let kind: Kind
    }

    /// The columns, in the table's order.
    let columns: [Column]
    /// The primary key's columns, in key order (empty for a table without one).
    let key: [String]

    /// The layout of table `name` (as the capture trigger logs it: `TG_TABLE_NAME`, found through the search path),
    /// or nil when there is no such table.
    static func read(_ name: String, on connection: ServerConnection) throws -> PostgresTableLayout? {
        parse(try connection.query(catalogQuery, [.text(name)]))
    }

    /// The layout of table `name`, read on `connection` with the caller suspended; nil when there is no such table.
    nonisolated(nonsending) static func read(_ name: String, on connection: ServerConnection) async throws -> PostgresTableLayout? {
        parse(try await connection.query(catalogQuery, [.text(name)]))
    }

    /// Each column of table `$1` with its type and its place in the primary key.
    private static let catalogQuery = """
        SELECT a.attname::text, t.typname::text, array_position(i.indkey::int2[], a.attnum) AS key_position
        FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
        WHERE a.attrelid = to_regclass(quote_ident($1)) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum
        """

    /// The layout the catalog query answered with; nil when it found no column.
    private static func parse(_ result: ServerResult) -> PostgresTableLayout? {
        guard !result.rows.isEmpty else { return nil }
        var columns: [Column] = []
        var keyParts: [(position: Int64, name: String)] = []
        for row in result.rows {
            guard case .text(let column) = row[0], case .text(let type) = row[1] else { continue }
            columns.append(Column(name: column, kind: Kind(typeName: type)))
            if case .integer(let position) = row[2] { keyParts.append((position, column)) }
        }
        return PostgresTableLayout(columns: columns, key: keyParts.sorted { $0.position < $1.position }.map(\.name))
    }
}

/// The layouts of the captured tables, read once per table and kept until a commit that changed the schema.
final class PostgresTableLayouts: Sendable {
    private let known = Mutex<[String: PostgresTableLayout]>([:])

    /// The layouts of `tables`, reading the ones not known yet on `connection`. A table that no longer exists has
    /// none (its row images are read by their JSON values).
    func layouts(of tables: Set<String>, on connection: ServerConnection) throws -> [String: PostgresTableLayout] {
        var found = cached(tables)
        for table in tables where found[table] == nil {
            found[table] = remember(table, try PostgresTableLayout.read(table, on: connection))
        }
        return found
    }

    /// The layouts of `tables`, read on `connection` when not cached, the caller suspended meanwhile.
    nonisolated(nonsending) func layouts(of tables: Set<String>, on connection: ServerConnection) async throws
        -> [String: PostgresTableLayout]
    {
        var found = cached(tables)
        for table in tables where found[table] == nil {
            found[table] = remember(table, try await PostgresTableLayout.read(table, on: connection))
        }
        return found
    }

    private func cached(_ tables: Set<String>) -> [String: PostgresTableLayout] {
        known.withLock { known in known.filter { tables.contains($0.key) } }
    }

    private func remember(_ table: String, _ layout: PostgresTableLayout?) -> PostgresTableLayout? {
        if let layout { known.withLock { $0[table] = layout } }
        return layout
    }

    /// Forgets every layout (the schema changed).
    func invalidate() {
        known.withLock { $0.removeAll() }
    }
}
#endif
