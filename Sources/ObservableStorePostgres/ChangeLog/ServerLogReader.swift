#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

/// The change log (`_store_commits`, `_store_changes`) read on one connection, for the ``CommitPublisher``, the
/// durable listeners and ``PostgresStore/commits(after:limit:)``.
///
/// Only stamped commits (`seq` set at COMMIT) are visible to a reader, and every snapshot sees a gap-free prefix
/// of them (docs/POSTGRES.md, "Change capture and the sequence").
struct ServerLogReader: ChangeLogReading {
    let connection: ServerConnection
    let layouts: ServerTableLayouts
    /// The last sequence to report without asking the server: what the store's own commit just got (the publisher
    /// asks for it only when nobody listens, to move past the log).
    var knownLast: Int64?

    /// A reader of the log on `connection`.
    init(connection: ServerConnection, layouts: ServerTableLayouts, knownLast: Int64? = nil) {
        self.connection = connection
        self.layouts = layouts
        self.knownLast = knownLast
    }

    /// The commits after `sequence` (through `last`), at most `limit` of them, each with all its changes: the limit
    /// counts commits, so a commit is never cut in half.
    func entries(after sequence: Int64, through last: Int64?, limit: Int) throws -> [ServerLogEntry] {
        let result = try connection.query(
            """
            WITH page AS (
              SELECT txid, seq, committed_at, origin, schema_changed FROM _store_commits
              WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3)
            SELECT p.seq, p.committed_at, p.origin, p.schema_changed, ch.tbl, ch.op::text, ch.old_row::text, ch.new_row::text
            FROM page p LEFT JOIN _store_changes ch ON ch.txid = p.txid
            ORDER BY p.seq, ch.ord
            """, [.integer(sequence), .integer(last ?? .max), .integer(Int64(limit))])
        var commits: [(row: [DatabaseValue], changes: [ServerLogEntry.LoggedChange])] = []
        for row in result.rows {
            guard case .integer(let seq) = row[0] else { continue }
            if commits.last.map({ $0.row[0] != .integer(seq) }) ?? true { commits.append((row, [])) }
            if case .text(let table) = row[4], case .text(let op) = row[5], let operation = op.first {
                commits[commits.count - 1].changes.append(
                    ServerLogEntry.LoggedChange(table: table, operation: operation, old: row[6].text, new: row[7].text))
            }
        }
        var entries: [ServerLogEntry] = []
        entries.reserveCapacity(commits.count)
        for (row, changes) in commits {
            let schemaChanged = row[3] == .integer(1)
            if schemaChanged { layouts.invalidate() }
            let tables = Set(changes.lazy.filter { $0.operation != "T" }.map(\.table))
            entries.append(
                ServerLogEntry(
                    sequence: row[0].integer ?? 0, committedAt: row[1].text.flatMap(Timestamp.parse) ?? Date(timeIntervalSince1970: 0),
                    origin: row[2].text, schemaChanged: schemaChanged, changes: changes,
                    layouts: tables.isEmpty ? [:] : try layouts.layouts(of: tables, on: connection)))
        }
        return entries
    }

    /// The last sequence assigned (`_store_head`, committed), or ``knownLast`` when given.
    func lastSequence() throws -> Int64 {
        if let knownLast { return knownLast }
        return try ServerLogReader.head(on: connection)
    }

    /// Commits are never logged in pieces here.
    func piece(_ index: Int, of sequence: Int64) throws -> ServerLogEntry? { nil }

    /// The last sequence assigned, as `connection` sees it.
    static func head(on connection: ServerConnection) throws -> Int64 {
        try connection.query("SELECT seq FROM _store_head WHERE id = 1").scalar?.integer ?? 0
    }

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
