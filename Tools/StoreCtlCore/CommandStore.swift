import Foundation
import ObservableStore

/// What storectl's engine-neutral commands need of a store, so that one command runs on either engine: the API both
/// engines share (``/ObservableStoreCore/RecordStore``: listeners, the change log's pages, the migration API, durable
/// listeners) and what only storectl asks (its catalog queries, storage, integrity). The SQLite `SQLiteStore`
/// (SQLiteStore+CommandStore.swift) and, with the trait PostgreSQL, `PostgresStore` (PostgresStore+CommandStore.swift)
/// conform.
protocol CommandStore: RecordStore where Transaction: CommandTransaction {
    /// Where the store is, as errors and `info` name it: a path, or a URL with any password hidden.
    var location: String { get }
    /// The newest version of the engine's own migration set that this storectl knows.
    var knownSchemaVersion: Int { get }
    /// The store's size and journal, for `info`.
    func storage() throws -> StoreStorage
    /// Every user table's CREATE statements, for `schema --sql`.
    func schemaSQL() throws -> String
    /// What `check` finds wrong with the store itself, one line each (empty when nothing is): on SQLite the file's
    /// integrity (`quick_check` when `quick`), foreign keys and the change log's pieces; on PostgreSQL capture
    /// triggers missing or disabled, and the sequence. Throws ``/ObservableStoreCore/StoreError/Code/corrupt`` for a
    /// damaged file.
    func integrityProblems(quick: Bool) throws -> [String]
    /// Throws ``/ObservableStoreCore/StoreError/Code/notAStore`` when the store has no migration history (or, on
    /// SQLite, another application id): storectl did not make it.
    func checkIsStore() throws
}

extension CommandStore {
    /// Runs `body` in one read transaction (one snapshot).
    func withReadTransaction<T>(_ body: (any CommandTransaction) throws -> T) throws -> T {
        try read { tx in try body(tx) }
    }

    /// Runs `body` in one write transaction and commits (the commit tagged with `origin`); rolls everything back when
    /// it throws.
    func withWriteTransaction<T>(origin: String?, _ body: (any CommandTransaction) throws -> T) throws -> T {
        try write(origin: origin) { tx in try body(tx) }
    }
}

/// The size and journal of a store, as `info` prints them.
struct StoreStorage {
    /// The database's size in bytes (the file, or the server's `pg_database_size`).
    var sizeBytes: Int64
    /// The journal: "wal" on SQLite, "server" on PostgreSQL.
    var journal: String
    /// The write-ahead log's size, frames and checkpointed frames (0 on PostgreSQL: the server's own).
    var walBytes: Int64 = 0
    var walFrames: Int64 = 0
    var walCheckpointedFrames: Int64 = 0
}

/// What storectl's commands need of a transaction, on either engine: raw SQL, a caller's statements (read-only
/// check, named parameters, rows as they come) and the catalog (user tables, columns, indexes).
protocol CommandTransaction: AnyObject {
    /// Runs SQL with bound arguments (`?` placeholders) and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> Int
    /// Runs a query (`?` placeholders) and returns every row.
    func fetchRows(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> [Row]
    /// Runs a query (`?` placeholders) and returns the first column of the first row.
    func fetchValue(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> DatabaseValue?
    /// Runs SQL with `values` bound to its `?` placeholders in order (the import's statements, run once per record).
    @discardableResult
    func execute(_ sql: String, values: [DatabaseValue]) throws -> Int
    /// Runs a query with `values` bound in order and returns the first column of the first row.
    func fetchValue(_ sql: String, values: [DatabaseValue]) throws -> DatabaseValue?
    /// The placeholder for a value written to or compared with `column`: `?` on SQLite; on PostgreSQL `?` with a
    /// cast to the column's type (the server does not convert a bound text to a timestamp, say, by itself).
    func placeholder(for column: TableInfo.Column) -> String
    /// Runs one statement with named arguments (`:name`) and returns every row it produces.
    func fetchRows(_ sql: String, named arguments: [String: any DatabaseValueConvertible]) throws -> [Row]
    /// Runs one query with named arguments and calls `body` with each row (as it is stepped, on SQLite).
    func forEachRow(_ sql: String, named arguments: [String: any DatabaseValueConvertible], _ body: (any RowCells) throws -> Void) throws
    /// Whether `sql` is one statement that leaves the store unchanged; throws for invalid SQL or several statements.
    func isReadOnlyStatement(_ sql: String) throws -> Bool
    /// The names of `sql`'s named parameters, without their prefix.
    func parameterNames(_ sql: String) throws -> [String]
    /// The user tables (not the engine's, not the store's `_store_` ones), by name.
    func userTables() throws -> [String]
    /// `table`'s columns in order; nil when there is no such user table.
    func columns(of table: String) throws -> [TableInfo.Column]?
    /// The names of the indexes created on `table` (not those of its constraints).
    func indexNames(of table: String) throws -> [String]
    /// `table`'s CREATE statements (table, then indexes), each ending with `;`.
    func createStatements(of table: String) throws -> String
}

extension GlobalOptions {
    /// Whether `text` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a file.
    static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// `text` with any password of a URL replaced by `***`.
    static func redacted(_ text: String) -> String {
        text.replacingOccurrences(of: #"(://[^:/@]*):[^@/]*@"#, with: "$1:***@", options: .regularExpression)
    }

    /// Opens the store of --db on its engine (a file, or with the trait PostgreSQL a `postgres://` URL), checks it
    /// is a storectl store and that its schema fits `need`.
    /// `migrating` (`init` and `migrate up` on PostgreSQL) applies the pending migrations (the whole schema, in a
    /// database that has none yet), waiting at most `migrationLockTimeout` (30 s by default, as on SQLite) for each
    /// lock;
    /// `live` (`watch`) has the PostgreSQL store read its change feed, so that listeners hear of commits.
    func openCommandStore(
        _ need: SchemaNeed, migrating: Bool = false, live: Bool = false, migrationLockTimeout: Duration = .seconds(30)
    ) throws -> any CommandStore {
        guard GlobalOptions.isPostgresURL(path) else { return try openStore(need) }
        #if PostgreSQL
        return try openPostgresStore(
            need, policy: migrating ? .migrate : .none, live: live, migrationLockTimeout: migrating ? migrationLockTimeout : nil)
        #else
        throw CLIError.usage(
            "--db \(GlobalOptions.redacted(path)): this storectl was built without PostgreSQL; build one with "
                + "`swift build -c release --product storectl --traits default,PostgreSQL`")
        #endif
    }

    /// Checks that `store`, just opened with `policy`, is a storectl store whose schema fits `need`; migrates
    /// (through `reopen` with `.migrate`) when `need` allows it. Closes the store when it throws.
    func prepared<S: CommandStore>(_ store: S, _ need: SchemaNeed, reopen: (MigrationPolicy) throws -> S) throws -> S {
        do {
            try store.checkIsStore()
            if case .current(let migrate) = need {
                // The library's check (the `requireCurrent` migration policy's): too new, conflicts, pending.
                do {
                    try store.migrationStatus().requireCurrent()
                } catch let error as StoreError where error.code == .migrationNeeded {
                    guard migrate else {
                        throw StoreError(
                            .migrationNeeded,
                            "store is at \(Migration.format(try store.schemaVersion())), storectl needs "
                                + "\(Migration.format(store.knownSchemaVersion)); run `storectl migrate up` "
                                + "(or pass --migrate)")
                    }
                    store.close()
                    return try prepared(try reopen(.migrate), .current(migrate: false), reopen: reopen)
                }
            }
            return store
        } catch {
            store.close()
            throw error
        }
    }
}
