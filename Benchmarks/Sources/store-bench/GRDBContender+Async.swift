import Foundation
import GRDB

extension GRDBContender {
    /// async_read with `DatabasePool.read` async, async_read_sync with the same read made synchronously.
    func asyncRead(_ workload: Workload) throws -> Measurement {
        try fill(Workload.asyncReadRows)
        let ids = Workload.asyncReadIDs()
        let pool = self.pool
        let start = ContinuousClock.now
        let total: Double
        if workload == .asyncRead {
            total = try waitForTask {
                try await Workload.fetchConcurrently(ids) { id in
                    try await pool.read { db in try Node.fetchOne(db, key: id)?.x ?? 0 }
                }
            }
        } else {
            var sum = 0.0
            for id in ids { sum += try pool.read { db in try Node.fetchOne(db, key: id)?.x ?? 0 } }
            total = sum
        }
        let elapsed = seconds(since: start)
        try check(total == Workload.lookupChecksum(ids), "grdb \(workload.rawValue) checksum")
        return Measurement(seconds: elapsed)
    }
}
