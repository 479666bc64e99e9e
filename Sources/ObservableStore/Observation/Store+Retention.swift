import Foundation
import StoreSQLite

extension Store {
    /// Prunes the change log as ``StoreConfiguration/retention`` says, now; returns how many commit
    /// records were deleted. The store also does this by itself every
    /// ``RetentionPolicy/pruneInterval`` commits.
    @discardableResult
    public func pruneChangeLog() throws -> Int {
        try write { tx in try Store.prune(tx, policy: configuration.retention) }
    }

    /// Deletes the commit records the policy lets go, inside `transaction`.
    static func prune(_ transaction: Transaction, policy: RetentionPolicy) throws -> Int {
        let last = try ChangeLog.lastSequence(transaction)
        // Everything at or below `bound` may go: older than both the count and the age limit.
        var bound = last
        if let maximumCommits = policy.maximumCommits { bound = min(bound, last - Int64(maximumCommits)) }
        if let maximumAge = policy.maximumAge {
            let cutoff = Date().addingTimeInterval(-Double(maximumAge.components.seconds))
            let ageBound =
                try transaction.fetchValue(
                    "SELECT max(seq) FROM \(ChangeLog.commitsTable) WHERE committed_at < ?", [Timestamp.format(cutoff)]
                ).flatMap(Int64.fromDatabaseValue) ?? 0
            bound = min(bound, ageBound)
        }
        if policy.maximumCommits == nil && policy.maximumAge == nil { bound = 0 }
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
        if deleted > 0 { try ChangeLog.bumpBookkeeping(on: transaction.connection) }
        return deleted
    }
}
