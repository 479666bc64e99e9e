import Foundation
import ObservableStoreCore
import StoreSQLite

extension SQLiteStore {
    /// Prunes the change log as ``SQLiteStoreConfiguration/retention`` says, now; returns how many commit
    /// records were deleted. The store also does this by itself every
    /// ``/ObservableStoreCore/RetentionPolicy/pruneInterval`` commits.
    @discardableResult
    public func pruneChangeLog() throws -> Int {
        try write { tx in try SQLiteStore.prune(tx, policy: configuration.retention) }
    }

    /// Deletes the commit records the policy lets go, inside `transaction`.
    static func prune(_ transaction: SQLiteTransaction, policy: RetentionPolicy) throws -> Int {
        let last = try ChangeLog.lastSequence(transaction)
        // Everything at or below `bound` may go: older than both the count and the age limit.
        var bound = last
        if let minimumKeptCommits = policy.minimumKeptCommits { bound = min(bound, last - Int64(minimumKeptCommits)) }
        if let minimumKeptAge = policy.minimumKeptAge, bound > 0 {
            // The oldest record young enough to stay, looked for from the oldest up, and not past `bound`: the
            // scan reads only records that go (committed_at has no index; `max(seq) WHERE committed_at < ?`
            // read the whole log, 13 ms at 200,000 records, at every pruning run). Everything below it is old
            // enough; a record older than one kept (a clock stepped back) stays too.
            let cutoff = Date().addingTimeInterval(-Double(minimumKeptAge.components.seconds))
            if let firstYoung = try transaction.fetchValue(
                "SELECT seq FROM \(ChangeLog.commitsTable) WHERE seq <= ? AND committed_at >= ? ORDER BY seq LIMIT 1",
                [bound, Timestamp.format(cutoff)]
            ).flatMap(Int64.fromDatabaseValue) {
                bound = firstYoung - 1
            }
        }
        if policy.minimumKeptCommits == nil && policy.minimumKeptAge == nil { bound = 0 }
        // Durable listeners hold the log back, up to the hard cap.
        if let slowest = try transaction.fetchValue("SELECT min(cursor_seq) FROM \(DurableCursor.table)")
            .flatMap(Int64.fromDatabaseValue)
        {
            bound = min(bound, slowest)
        }
        if let hardCap = policy.hardCapCommits { bound = max(bound, last - Int64(hardCap)) }
        // The newest record always stays: the next sequence is max(seq) + 1, and must never repeat one.
        bound = min(bound, last - 1)
        guard bound > 0 else { return 0 }
        let deleted = try transaction.execute("DELETE FROM \(ChangeLog.commitsTable) WHERE seq <= ?", [bound])
        // A commit's other pieces go with it (a log below migration 0007 has none).
        if try ChangeLog.hasPieces(on: transaction.connection) {
            try transaction.execute("DELETE FROM \(ChangeLog.piecesTable) WHERE seq <= ?", [bound])
        }
        if deleted > 0 { try ChangeLog.bumpBookkeeping(on: transaction.connection) }
        return deleted
    }
}
