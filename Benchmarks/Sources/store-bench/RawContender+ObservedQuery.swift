import CSQLiteRaw
import Foundation

extension RawContender {
    /// observed_query_irrelevant's commits with no observer: what the commits alone cost.
    func observedQueryIrrelevantFloor(_ workload: Workload) throws -> Measurement {
        try fill(workload.tableSize)
        try exec("CREATE INDEX nodes_x ON nodes(x)")
        let update = try prepare("UPDATE nodes SET x = x + 0.5 WHERE id = ?")
        defer { sqlite3_finalize(update) }
        let start = ContinuousClock.now
        for commit in 0..<Workload.observedQueryCommits {
            try exec("BEGIN IMMEDIATE")
            sqlite3_bind_int64(update, 1, workload.irrelevantRowID(commit))
            guard sqlite3_step(update) == SQLITE_DONE else { throw WrongResult("raw observed_query update") }
            sqlite3_reset(update)
            try exec("COMMIT")
        }
        return Measurement(seconds: seconds(since: start) / Double(Workload.observedQueryCommits))
    }
}
