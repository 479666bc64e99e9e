import ObservableStoreCore
import StoreSQLite

/// What an observed read used: the tables and columns its statements read, as SQLite's authorizer reported
/// them while they were prepared (`SQLiteStore.observe(tracking:)`). A commit that changes none
/// of it cannot change what the read returns.
struct ReadRegion: Sendable, Equatable {
    /// The columns read from one table.
    enum Columns: Sendable, Equatable {
        /// The whole table: any change to it matters (`count(*)`, `EXISTS`, the rowid).
        case all
        /// Only updates of these columns matter (inserts and deletes always do).
        case only(Set<String>)
    }

    /// The tables read, by their names in the schema; nil: the whole database, because the read used
    /// something whose changes are not logged (a virtual table, an internal or temporary table, another
    /// database). Views are not in it: SQLite reports the tables a view reads.
    private(set) var tables: [String: Columns]?

    /// Every commit may change the read.
    static let wholeDatabase = ReadRegion(tables: nil)

    /// A region of `tables` (nil: the whole database).
    init(tables: [String: Columns]?) {
        self.tables = tables
    }

    /// The region of `reads`, given the database's `tables` whose changes are logged (those `sqlite_master`
    /// lists with a root page) and its `views`. A read of anything else but the schema (a virtual table, a
    /// table-valued function, the store's own tables) makes the region the whole database.
    init(reads: Set<ReadAccess>, tables storedTables: Set<String>, views: Set<String>) {
        var tables: [String: Columns] = [:]
        for read in reads {
            if ReadRegion.schemaTables.contains(read.table) || ReadRegion.pureFunctions.contains(read.table)
                || views.contains(read.table)
            {
                continue  // a schema change always reads again; these functions read no table; a view's tables come too
            }
            guard read.database == nil || read.database == "main", storedTables.contains(read.table),
                !read.table.hasPrefix("sqlite_"), !read.table.hasPrefix("_store_")
            else {
                self.init(tables: nil)
                return
            }
            let wholeTable = read.column.isEmpty || read.column.lowercased() == "rowid"
            switch tables[read.table] {
            case .all: break
            case .only(let columns): tables[read.table] = wholeTable ? .all : .only(columns.union([read.column]))
            case nil: tables[read.table] = wholeTable ? .all : .only([read.column])
            }
        }
        self.init(tables: tables)
    }

    /// The stored tables (a virtual table has no root page) and the views.
    private static let schemaSQL = "SELECT name, type FROM sqlite_master WHERE (type = 'table' AND rootpage <> 0) OR type = 'view'"
    /// The schema's own table, under its names: read by `PRAGMA`-like queries; a schema change reads again anyway.
    private static let schemaTables: Set<String> = ["sqlite_master", "sqlite_schema"]
    /// Table-valued functions that depend only on their arguments.
    private static let pureFunctions: Set<String> = ["json_each", "json_tree"]

    /// Whether `commit` may change what the read returns: a schema change, an external change, or a change to
    /// a table of the region — an insert, a delete, or an update of a column read (any, for a whole table).
    func isChanged(by commit: Commit) -> Bool {
        guard let tables, !commit.schemaChanged, !commit.isExternalChange else { return true }
        return commit.changes.contains { change in
            switch (tables[change.table], change.operation) {
            case (nil, _): false
            case (_, .insert), (_, .delete), (.all, .update): true
            case (.only(let columns), .update): ReadRegion.update(change, mayChange: columns)
            }
        }
    }

    /// Whether the update `change` may have changed one of `columns`: it changed one, or one is not among the
    /// row's logged columns (a generated column: the log has the columns `PRAGMA table_info` lists, and the
    /// authorizer reports a generated column, not the columns it is computed from).
    private static func update(_ change: Change, mayChange columns: Set<String>) -> Bool {
        if change.changedColumns.contains(where: columns.contains) { return true }
        guard let logged = change.new?.columns else { return true }
        return columns.contains { !logged.contains($0) }
    }

    /// Runs `body` in `transaction`, recording what its statements read; returns its value and the region.
    static func recording<T>(in transaction: SQLiteTransaction, _ body: () throws -> T) throws -> (value: T, region: ReadRegion) {
        try transaction.checkActive()
        let (value, reads) = try StoreError.wrapping { try transaction.connection.recordingReads(body) }
        guard !reads.isEmpty else { return (value, ReadRegion(tables: [:])) }
        var tables: Set<String> = []
        var views: Set<String> = []
        for row in try transaction.fetchRows(ReadRegion.schemaSQL) {
            guard let name = row.value("name", as: String.self) else { continue }
            if row.value("type", as: String.self) == "view" { views.insert(name) } else { tables.insert(name) }
        }
        return (value, ReadRegion(reads: reads, tables: tables, views: views))
    }
}
