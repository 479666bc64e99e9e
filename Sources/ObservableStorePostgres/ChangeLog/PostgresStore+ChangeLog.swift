#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres

extension PostgresStore {
    /// The log from commit `sequence` on, in one snapshot: at most `limit` commits. A commit here is never split in
    /// pieces, so `piece` is always 0. A commit that truncated a table is marked
    /// ``/ObservableStoreCore/Commit/isExternalChange`` (no row images; listeners get a resync).
    package func loggedCommits(from sequence: Int64, piece: Int, limit: Int) throws -> [Commit] {
        try withSnapshot { connection in
            try PostgresLogReader(connection: connection, layouts: observation.layouts)
                .entries(after: sequence - 1, through: nil, limit: limit).map { try $0.decoded() }
        }
    }

    /// Prunes the change log as ``PostgresStoreConfiguration/retention`` says, now; returns how many commit records
    /// were deleted. The store also does this by itself every ``/ObservableStoreCore/RetentionPolicy/pruneInterval``
    /// of its own commits. The last sequence pruned is recorded in `_store_meta` (`pruned_through`).
    @discardableResult
    public func pruneChangeLog() throws -> Int {
        try withServerTransaction { connection in
            let bound = try pruningBound(policy: configuration.retention, on: connection)
            return try prune(through: bound, on: connection)
        }
    }

    /// The last sequence `policy` lets go, as SQLite's store computes it: older than both floors, never past the
    /// slowest durable cursor unless it lags more than the hard cap.
    private func pruningBound(policy: RetentionPolicy, on connection: ServerConnection) throws -> Int64 {
        let last = try PostgresLogReader.head(on: connection)
        var bound = last
        if let minimumKeptCommits = policy.minimumKeptCommits { bound = min(bound, last - Int64(minimumKeptCommits)) }
        if let minimumKeptAge = policy.minimumKeptAge, bound > 0 {
            // The oldest commit young enough to stay, looked for from the oldest up (committed_at has no index).
            if case .integer(let firstYoung) = try connection.query(
                "SELECT seq FROM _store_commits WHERE seq <= $1 AND committed_at >= clock_timestamp() - make_interval(secs => $2) "
                    + "ORDER BY seq LIMIT 1", [.integer(bound), .real(Double(minimumKeptAge.components.seconds))]
            ).scalar {
                bound = firstYoung - 1
            }
        }
        if policy.minimumKeptCommits == nil && policy.minimumKeptAge == nil { bound = 0 }
        if case .integer(let slowest) = try connection.query("SELECT min(cursor_seq) FROM _store_listeners").scalar {
            bound = min(bound, slowest)
        }
        if let hardCap = policy.hardCapCommits { bound = max(bound, last - Int64(hardCap)) }
        return min(bound, last)
    }

    /// Deletes the commits (and their changes) through `bound`, in the caller's transaction; returns how many.
    /// Uncommitted transactions' rows (no sequence yet) are never touched.
    private func prune(through bound: Int64, on connection: ServerConnection) throws -> Int {
        guard bound > 0 else { return 0 }
        try connection.execute(
            "DELETE FROM _store_changes ch USING _store_commits c WHERE ch.txid = c.txid AND c.seq <= $1", [.integer(bound)])
        let deleted = try connection.execute("DELETE FROM _store_commits WHERE seq <= $1", [.integer(bound)])
        try connection.execute(
            "INSERT INTO _store_meta (key, value) VALUES ('pruned_through', $1) "
                + "ON CONFLICT (key) DO UPDATE SET value = greatest(_store_meta.value, excluded.value)", [.integer(bound)])
        return deleted
    }
}
#endif
