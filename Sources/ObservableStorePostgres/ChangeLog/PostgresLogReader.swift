#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

/// The change log (`_store_commits`, `_store_changes`) read on one connection, for the ``CommitPublisher``, the
/// durable listeners and ``PostgresStore/commits(after:limit:)``.
///
/// Only stamped commits (`seq` set at COMMIT) are visible to a reader, and every snapshot sees a gap-free prefix
/// of them (docs/POSTGRES.md, "Change capture and the sequence").
struct PostgresLogReader: ChangeLogReading {
    let connection: ServerConnection
    let layouts: PostgresTableLayouts
    /// The last sequence to report without asking the server: what the store's own commit just got (the publisher
    /// asks for it only when nobody listens, to move past the log).
    var knownLast: Int64?

    /// A reader of the log on `connection`.
    init(connection: ServerConnection, layouts: PostgresTableLayouts, knownLast: Int64? = nil) {
        self.connection = connection
        self.layouts = layouts
        self.knownLast = knownLast
    }

    /// The commits after `sequence` (through `last`), at most `limit` of them, each with all its changes: the limit
    /// counts commits, so a commit is never cut in half.
    func entries(after sequence: Int64, through last: Int64?, limit: Int) throws -> [PostgresLogEntry] {
        let page = PostgresLogReader.page(after: sequence, through: last, limit: limit)
        let commits = commitsForgettingStaleLayouts(try connection.query(page.sql, page.values))
        return try PostgresLogReader.entries(of: commits, layouts: try layouts.layouts(of: PostgresLogReader.tables(of: commits), on: connection))
    }

    /// The commits after `sequence`, as the blocking form reads them, the caller suspended meanwhile.
    nonisolated(nonsending) func entries(after sequence: Int64, through last: Int64?, limit: Int) async throws -> [PostgresLogEntry] {
        let page = PostgresLogReader.page(after: sequence, through: last, limit: limit)
        let commits = commitsForgettingStaleLayouts(try await connection.query(page.sql, page.values))
        let tables = PostgresLogReader.tables(of: commits)
        return try PostgresLogReader.entries(of: commits, layouts: try await layouts.layouts(of: tables, on: connection))
    }

    /// The page's commits; when one of them changed the schema, the cached table layouts are forgotten first, so
    /// that its row images and later ones are read with the layouts of now.
    private func commitsForgettingStaleLayouts(_ result: ServerResult) -> [LoggedCommit] {
        let commits = PostgresLogReader.commits(in: result)
        if commits.contains(where: { $0.row[3] == .integer(1) }) { layouts.invalidate() }
        return commits
    }

    /// One commit's row (sequence, time, origin, schema changed) and its changes, as the page query returns them.
    private typealias LoggedCommit = (row: [DatabaseValue], changes: [PostgresLogEntry.LoggedChange])

    /// The query of a page of the log: commits after `sequence` through `last`, at most `limit`, joined with their changes.
    private static func page(after sequence: Int64, through last: Int64?, limit: Int) -> (sql: String, values: [DatabaseValue]) {
        (
            """
            WITH page AS (
              SELECT txid, seq, committed_at, origin, schema_changed FROM _store_commits
              WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3)
            SELECT p.seq, p.committed_at, p.origin, p.schema_changed, ch.tbl, ch.op::text, ch.old_row::text, ch.new_row::text
            FROM page p LEFT JOIN _store_changes ch ON ch.txid = p.txid
            ORDER BY p.seq, ch.ord
            """, [.integer(sequence), .integer(last ?? .max), .integer(Int64(limit))]
        )
    }

    /// The page's rows grouped by commit.
    private static func commits(in result: ServerResult) -> [LoggedCommit] {
        var commits: [LoggedCommit] = []
        for row in result.rows {
            guard case .integer(let seq) = row[0] else { continue }
            if commits.last.map({ $0.row[0] != .integer(seq) }) ?? true { commits.append((row, [])) }
            if case .text(let table) = row[4], case .text(let op) = row[5], let operation = op.first {
                commits[commits.count - 1].changes.append(
                    PostgresLogEntry.LoggedChange(table: table, operation: operation, old: row[6].text, new: row[7].text))
            }
        }
        return commits
    }

    /// The tables whose rows the commits changed (a truncation logs no row).
    private static func tables(of commits: [LoggedCommit]) -> Set<String> {
        Set(commits.lazy.flatMap(\.changes).filter { $0.operation != "T" }.map(\.table))
    }

    /// The log entries of `commits`, their row images read with `layouts`; a commit that changed the schema makes
    /// later reads load the layouts again.
    private static func entries(of commits: [LoggedCommit], layouts: [String: PostgresTableLayout]) throws -> [PostgresLogEntry] {
        var entries: [PostgresLogEntry] = []
        entries.reserveCapacity(commits.count)
        for (row, changes) in commits {
            let tables = Set(changes.lazy.filter { $0.operation != "T" }.map(\.table))
            entries.append(
                PostgresLogEntry(
                    sequence: row[0].integer ?? 0, committedAt: row[1].text.flatMap(Timestamp.parse) ?? Date(timeIntervalSince1970: 0),
                    origin: row[2].text, schemaChanged: row[3] == .integer(1), changes: changes,
                    layouts: layouts.filter { tables.contains($0.key) }))
        }
        return entries
    }

    /// The last sequence assigned (`_store_head`, committed), or ``knownLast`` when given.
    func lastSequence() throws -> Int64 {
        if let knownLast { return knownLast }
        return try PostgresLogReader.head(on: connection)
    }

    /// Commits are never logged in pieces here.
    func piece(_ index: Int, of sequence: Int64) throws -> PostgresLogEntry? { nil }

    /// The last sequence assigned, as `connection` sees it.
    static func head(on connection: ServerConnection) throws -> Int64 {
        try connection.query(headQuery).scalar?.integer ?? 0
    }

    /// The last sequence assigned, as `connection` sees it, the caller suspended meanwhile.
    nonisolated(nonsending) static func head(on connection: ServerConnection) async throws -> Int64 {
        try await connection.query(headQuery).scalar?.integer ?? 0
    }

    private static let headQuery = "SELECT seq FROM _store_head WHERE id = 1"

    /// In the caller's snapshot: the last sequence assigned, and the transaction ids of the commits the snapshot
    /// holds that have no sequence number yet (committed, waiting for a stamper: they will be numbered after the
    /// head). The list is empty on a store without migration 0002.
    static func snapshotHead(on connection: ServerConnection, listingWaiting: Bool) throws -> (head: Int64, waiting: [String]) {
        guard listingWaiting else { return (try head(on: connection), []) }
        let row = try connection.query(
            "SELECT seq, (SELECT string_agg(txid::text, ',') FROM _store_commits WHERE seq IS NULL AND ticket IS NOT NULL) "
                + "FROM _store_head WHERE id = 1"
        ).rows.first
        let waiting = row?[1].text.map { $0.split(separator: ",").map(String.init) } ?? []
        return (row?[0].integer ?? 0, waiting)
    }

    /// The sequence numbers of the committed transactions `transactionIDs`, ascending, numbering them first if they
    /// are still waiting (after the stamper ahead, if any); outside a transaction.
    static func sequences(of transactionIDs: [String], on connection: ServerConnection) throws -> [Int64] {
        try connection.query(
            "SELECT _store_sequences_of(string_to_array($1, ',')::xid8[])", [.text(transactionIDs.joined(separator: ","))]
        ).rows.compactMap { $0.first?.integer }
    }

    /// Numbers the commits waiting for their sequence number when the stamp lock is free (migration 0002), then
    /// returns the last sequence assigned; outside a transaction.
    static func stampWaiting(on connection: ServerConnection) throws -> Int64 {
        try connection.query("SELECT _store_stamp_waiting()").scalar?.integer ?? 0
    }

    /// Numbers the waiting commits when it may, then returns the last sequence assigned; the caller suspended.
    nonisolated(nonsending) static func stampWaiting(on connection: ServerConnection) async throws -> Int64 {
        try await connection.query("SELECT _store_stamp_waiting()").scalar?.integer ?? 0
    }
}

extension DatabaseValue {
    /// The text, when this is text.
    fileprivate var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The integer, when this is an integer.
    fileprivate var integer: Int64? {
        if case .integer(let integer) = self { return integer }
        return nil
    }
}
#endif
