#if PostgreSQL
import ObservableStoreCore
import StorePostgres

// The PostgreSQL engine's side of the core's engine protocol: snapshots in REPEATABLE READ on pooled connections,
// the change log (`_store_commits`, `_store_changes`), and durable cursors (`_store_listeners`).
extension PostgresStore: RecordEngine {
    /// A snapshot is a read transaction.
    package typealias Snapshot = PostgresTransaction

    /// Whether the store logs its commits (durable listeners need it).
    package var tracksChanges: Bool { configuration.tracksChanges }

    /// How PostgreSQL compares `columns` of `table` (``PostgresColumnComparator``), from the catalog, read once per
    /// table and kept until the schema may have changed; a column of a type not modelled is left out.
    package static func columnComparators(
        of table: String, columns: Set<String>, in snapshot: PostgresTransaction
    ) throws -> [String: any ColumnComparator] {
        let known = try snapshot.tableColumns.columns(of: table, on: snapshot.connection)
        var comparators: [String: any ColumnComparator] = [:]
        for column in columns {
            if let comparator = known.comparator(for: column) { comparators[column] = comparator }
        }
        return comparators
    }

    /// Runs `body` in one REPEATABLE READ snapshot and says which commits it holds: every commit up to the head it
    /// read, and the commits it holds that were not numbered yet when it was taken (committed, waiting for a
    /// stamper), numbered here before this returns (docs/POSTGRES.md, "What a snapshot holds").
    package func readSnapshot<T>(_ body: (PostgresTransaction) throws -> T) throws -> (value: T, position: SnapshotPosition) {
        let (value, head, waiting) = try read { transaction in
            let value = try body(transaction)
            let (head, waiting) = try PostgresLogReader.snapshotHead(
                on: transaction.connection, listingWaiting: numbersCommitsAfterCommit)
            return (value, head, waiting)
        }
        guard !waiting.isEmpty else { return (value, SnapshotPosition(sequence: head)) }
        let later = try pool.withConnection { connection in try PostgresLogReader.sequences(of: waiting, on: connection) }
        return (value, SnapshotPosition(sequence: head, laterCommits: later))
    }

    package func readLog(after sequence: Int64, limit: Int) throws -> (entries: [PostgresLogEntry], last: Int64) {
        try withSnapshot { connection in
            let last = try PostgresLogReader.head(on: connection)
            let entries = try PostgresLogReader(connection: connection, layouts: observation.layouts)
                .entries(after: sequence, through: last, limit: limit)
            return (entries, last)
        }
    }

    package func advanceCursor(of name: String, to sequence: Int64) throws {
        try pool.withConnection { connection in try PostgresDurableCursor.advance(name, to: sequence, on: connection) }
    }

    package func cursor(of name: String, isAtLeast sequence: Int64) throws -> Bool {
        try pool.withConnection { connection in
            try connection.query("SELECT cursor_seq >= $1 FROM _store_listeners WHERE name = $2", [.integer(sequence), .text(name)])
                .scalar == .integer(1)
        }
    }

    /// Runs `body` in a read-only REPEATABLE READ transaction on a pooled connection: every statement in it sees
    /// the same snapshot.
    func withSnapshot<T>(_ body: (ServerConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try connection.inTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { try body(connection) }
        }
    }

    /// Runs `body` in a READ COMMITTED write transaction on a pooled connection, committed when it returns.
    func withServerTransaction<T>(_ body: (ServerConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try connection.inTransaction { try body(connection) }
        }
    }
}
#endif
