#if PostgreSQL
import ObservableStoreCore
import StorePostgres
import Synchronization

/// The column types of one table, for binding a record's values: a value goes to a column of a type the client binds
/// natively (integers, floating point and numeric, text, `bytea`) as it is, and to any other column (`timestamptz`,
/// `boolean`, `uuid`, `jsonb`, an enum…) as text with a cast to the column's type (`$3::timestamp with time zone`).
struct TableColumns: Sendable {
    /// A text column's collation, as far as comparing in memory needs it.
    struct Collation: Sendable, Equatable {
        /// Whether equal strings are exactly the byte-equal ones (every collation but a nondeterministic ICU one).
        var isDeterministic: Bool
        /// Whether strings sort byte by byte: the `C` or `POSIX` collation, named or the database's default (with the
        /// libc provider).
        var isBytewise: Bool
    }

    /// Each column's type, as `format_type` names it, by column name.
    let types: [String: String]
    /// Each collatable column's collation, by column name.
    var collations: [String: Collation] = [:]

    /// No column known: every value is bound as it is.
    static let unknown = TableColumns(types: [:])

    /// The types PostgreSQL converts the client's `int8`, `float8`, `text` and `bytea` parameters to by itself.
    private static let bindsNatively: Set<String> = [
        "bigint", "integer", "smallint", "double precision", "real", "numeric", "text", "character varying", "character",
        "bytea",
    ]

    /// Whether `column` takes a cast: known, and of a type not bound natively.
    func needsCast(_ column: String) -> Bool {
        guard let type = types[column] else { return false }
        return !TableColumns.bindsNatively.contains(type)
    }

    /// Whether `column` holds text (LIKE compares it without a cast).
    func isText(_ column: String) -> Bool {
        guard let type = types[column] else { return true }
        return type == "text" || type == "character varying" || type == "character"
    }

    /// Parameter `index` as `column` takes it: `$3`, or `$3::uuid`.
    func placeholder(_ index: Int, for column: String) -> String {
        guard needsCast(column), let type = types[column] else { return "$\(index)" }
        return "$\(index)::\(type)"
    }

    /// How PostgreSQL compares `column`'s values, when that can be modelled in memory.
    func comparator(for column: String) -> PostgresColumnComparator? {
        types[column].flatMap { PostgresColumnComparator(type: $0, collation: collations[column]) }
    }

    /// `value` as `column` takes it: unchanged, or as text for a column that casts (a blob stays a blob).
    func bound(_ value: DatabaseValue, for column: String) -> DatabaseValue {
        guard needsCast(column) else { return value }
        switch value {
        case .integer(let integer): return .text(String(integer))
        case .real(let double): return .text(String(double))
        case .null, .text, .blob: return value
        }
    }
}

/// Each table's ``TableColumns``, read from the catalog once per store and kept until the schema may have changed
/// (a migration, or a `CREATE`/`ALTER`/`DROP` run through a transaction's `execute`).
final class TableColumnsCache: Sendable {
    private let tables = Mutex<[String: TableColumns]>([:])

    /// The columns of `table`, read on `connection` when not cached. A table that does not exist has none (the
    /// statement that uses it then fails with PostgreSQL's own error).
    func columns(of table: String, on connection: ServerConnection) throws -> TableColumns {
        if let known = tables.withLock({ $0[table] }) { return known }
        let query = TableColumnsCache.catalogQuery(of: table)
        return remember(table, try connection.query(query.sql, query.values))
    }

    /// The columns of `table`, read on `connection` when not cached, the caller suspended meanwhile.
    nonisolated(nonsending) func columns(of table: String, on connection: ServerConnection) async throws -> TableColumns {
        if let known = tables.withLock({ $0[table] }) { return known }
        let query = TableColumnsCache.catalogQuery(of: table)
        return remember(table, try await connection.query(query.sql, query.values))
    }

    private static func catalogQuery(of table: String) -> (sql: String, values: [DatabaseValue]) {
        (
            """
            SELECT a.attname, format_type(a.atttypid, NULL), c.collisdeterministic,
              CASE WHEN c.collname <> 'default' THEN c.collname IN ('C', 'POSIX')
                ELSE (SELECT d.datcollate IN ('C', 'POSIX') AND coalesce(to_jsonb(d) ->> 'datlocprovider', 'c') = 'c'
                      FROM pg_database d WHERE d.datname = current_database()) END
            FROM pg_attribute a LEFT JOIN pg_collation c ON c.oid = a.attcollation
            WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
            """,
            [.text(ServerConnection.quoteIdentifier(table))]
        )
    }

    /// The columns the catalog query answered with, cached when the table exists.
    private func remember(_ table: String, _ result: ServerResult) -> TableColumns {
        var types: [String: String] = [:]
        var collations: [String: TableColumns.Collation] = [:]
        for row in result.rows {
            guard case .text(let name) = row[0], case .text(let type) = row[1] else { continue }
            types[name] = type
            if case .integer(let deterministic) = row[2] {
                collations[name] = TableColumns.Collation(isDeterministic: deterministic == 1, isBytewise: row[3] == .integer(1))
            }
        }
        let columns = TableColumns(types: types, collations: collations)
        if !types.isEmpty { tables.withLock { $0[table] = columns } }
        return columns
    }

    /// Forgets every table (the schema may have changed).
    func removeAll() {
        tables.withLock { $0.removeAll() }
    }
}
#endif
