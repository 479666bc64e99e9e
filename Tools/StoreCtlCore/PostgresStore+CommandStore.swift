#if PostgreSQL
import Foundation
import ObservableStore
import ObservableStorePostgres

/// The PostgreSQL store as storectl's commands use it (CommandStore.swift): `--db postgres://user@host:port/database`.
/// storectl opens it with ``/ObservableStorePostgres/PostgresStoreConfiguration/lockTimeout`` set to --busy-timeout: a
/// lock not had in time is ``/ObservableStoreCore/StoreError/Code/busy`` (exit 5), as on SQLite.
extension PostgresStore: CommandStore {
    var location: String { url }

    var knownSchemaVersion: Int { MigrationSet.postgresStore.latestVersion }

    func integrityProblems(quick: Bool) throws -> [String] { try check() }

    func storage() throws -> StoreStorage {
        let size = try withReadTransaction { try $0.fetchValue("SELECT pg_database_size(current_database())", []) }
        return StoreStorage(sizeBytes: size.flatMap(Int64.fromDatabaseValue) ?? 0, journal: "server")
    }

    func schemaSQL() throws -> String {
        try withReadTransaction { tx in try tx.userTables().map { try tx.createStatements(of: $0) }.joined(separator: "\n\n") }
    }

    /// A database without the migration history is not a storectl store.
    func checkIsStore() throws {
        let hasHistory = try withReadTransaction { try $0.fetchValue("SELECT to_regclass('_store_migrations') IS NOT NULL", []) }
        guard hasHistory == .integer(1) else {
            throw StoreError(.notAStore, "\(url) is not a storectl store (no migration history)")
        }
    }
}

// The PostgreSQL transaction as storectl's commands use it: the catalog from pg_class, pg_attribute and pg_index
// (tables of the current schema only).
extension PostgresTransaction: CommandTransaction {
    /// The user tables of the current schema, as a FROM clause: `c` is the table's `pg_class` row.
    static let userTablesFrom = """
        pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace \
        AND c.relname NOT LIKE '\\_store\\_%'
        """

    func forEachRow(
        _ sql: String, named arguments: [String: any DatabaseValueConvertible], _ body: (any RowCells) throws -> Void
    ) throws {
        for row in try fetchRows(sql, named: arguments) {
            try body(ValueRow(columnNames: row.columns, values: row.values))
        }
    }

    func execute(_ sql: String, values: [DatabaseValue]) throws -> Int {
        try execute(sql, values.map { $0 as any DatabaseValueConvertible })
    }

    func fetchValue(_ sql: String, values: [DatabaseValue]) throws -> DatabaseValue? {
        try fetchValue(sql, values.map { $0 as any DatabaseValueConvertible })
    }

    /// A `boolean` column goes through text: the input's 1, 0, true and false arrive as integers, and PostgreSQL has
    /// no cast from `bigint` to `boolean`, while `'1'`, `'0'`, `'true'` and `'false'` are boolean literals.
    func placeholder(for column: TableInfo.Column) -> String {
        column.type == "boolean" ? "?::text::boolean" : "?::\(column.type)"
    }

    func userTables() throws -> [String] {
        try fetchRows("SELECT c.relname::text AS name FROM \(PostgresTransaction.userTablesFrom) ORDER BY c.relname COLLATE \"C\"")
            .compactMap { $0.value("name") }
    }

    func columns(of table: String) throws -> [TableInfo.Column]? {
        let exists = try fetchValue("SELECT count(*) FROM \(PostgresTransaction.userTablesFrom) AND c.relname = $1", [table])
        guard exists == .integer(1) else { return nil }
        return try fetchRows(
            """
            SELECT a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
                   pg_get_expr(d.adbin, d.adrelid) AS dflt_value,
                   coalesce(array_position(string_to_array(i.indkey::text, ' ')::int2[], a.attnum), 0) AS pk
            FROM pg_class c
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
            LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
            WHERE c.relname = $1 AND c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
            ORDER BY a.attnum
            """,
            [table]
        ).map { row in
            TableInfo.Column(
                name: row.value("name") ?? "", type: row.value("type") ?? "", notNull: row.value("notnull", as: Int.self) == 1,
                defaultValue: row.value("dflt_value"), primaryKeyPosition: row.value("pk") ?? 0)
        }
    }

    func indexNames(of table: String) throws -> [String] {
        try indexDefinitions(of: table).map(\.name)
    }

    /// The indexes created on `table` (not those of its constraints): name and `CREATE INDEX` text.
    private func indexDefinitions(of table: String) throws -> [(name: String, definition: String)] {
        try fetchRows(
            """
            SELECT x.relname::text AS name, pg_get_indexdef(x.oid) AS definition FROM pg_index i
            JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_class c ON c.oid = i.indrelid
            WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace
              AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.oid)
            ORDER BY x.relname COLLATE "C"
            """, [table]
        ).map { ($0.value("name", as: String.self) ?? "", $0.value("definition", as: String.self) ?? "") }
    }

    /// A readable CREATE TABLE built from the catalog (columns, defaults, constraints), then the indexes: not the
    /// text that created the table (PostgreSQL does not keep it).
    func createStatements(of table: String) throws -> String {
        guard let columns = try columns(of: table) else { return "" }
        var lines = columns.map { column in
            "  \(TableInfo.quote(column.name)) \(column.type)" + (column.notNull ? " NOT NULL" : "")
                + (column.defaultValue.map { " DEFAULT \($0)" } ?? "")
        }
        lines += try fetchRows(
            """
            SELECT k.conname::text AS name, pg_get_constraintdef(k.oid) AS definition FROM pg_constraint k
            JOIN pg_class c ON c.oid = k.conrelid
            WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace
            ORDER BY k.contype = 'p' DESC, k.conname COLLATE "C"
            """, [table]
        ).map { row in
            "  CONSTRAINT \(TableInfo.quote(row.value("name", as: String.self) ?? "")) \(row.value("definition", as: String.self) ?? "")"
        }
        let create = "CREATE TABLE \(TableInfo.quote(table)) (\n" + lines.joined(separator: ",\n") + "\n);"
        return ([create] + (try indexDefinitions(of: table)).map { $0.definition + ";" }).joined(separator: "\n")
    }
}

extension GlobalOptions {
    /// Opens the PostgreSQL store of a `postgres://` --db without migrating it (unless `need` allows it), checks it is
    /// a storectl store and that its schema fits `need`. A missing database is not found (3); a server that is down
    /// or refuses the login is unavailable (11); a malformed URL is a usage error (2).
    /// Opens the PostgreSQL store: every lock is waited for at most --busy-timeout, the migrations' too unless
    /// `migrationLockTimeout` (`migrate up`'s --lock-timeout) is given.
    func openPostgresStore(
        _ need: SchemaNeed, policy: MigrationPolicy = .none, live: Bool = false, migrationLockTimeout: Duration? = nil
    ) throws -> PostgresStore {
        var configuration = PostgresStoreConfiguration()
        configuration.migrationPolicy = policy
        configuration.migrationLockTimeout = migrationLockTimeout ?? busyTimeoutDuration
        configuration.tracksChanges = live
        configuration.lockTimeout = busyTimeoutDuration
        configuration.maximumConnectionCount = 2
        configuration.applicationName = "storectl \(SQLiteStore.libraryVersion)"
        let store: PostgresStore
        do {
            store = try PostgresStore(url: path, configuration: configuration)
        } catch let error as StoreError where error.code == .notAStore {
            throw StoreError(.notAStore, "\(GlobalOptions.redacted(path)) is not a storectl store: \(error.message)")
        }
        return try prepared(store, need) { policy in
            try openPostgresStore(.any, policy: policy, live: live, migrationLockTimeout: migrationLockTimeout)
        }
    }
}
#endif
