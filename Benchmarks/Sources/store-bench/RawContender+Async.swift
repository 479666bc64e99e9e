import CSQLiteRaw
import Foundation

extension RawContender {
    /// async_read_sync: the fetches one after the other on one prepared statement, the floor of both cases. The C
    /// API has no async calls, so raw does not run async_read.
    func asyncRead(_ workload: Workload) throws -> Measurement {
        guard workload == .asyncReadSync else {
            return Measurement(unsupported: "the C API has no async calls: its synchronous loop (async_read_sync) is the floor")
        }
        try fill(Workload.asyncReadRows)
        let ids = Workload.asyncReadIDs()
        let statement = try prepare(
            "SELECT id, name, x, y, color, width, height, created_at, updated_at FROM nodes WHERE id = ?")
        defer { sqlite3_finalize(statement) }
        let start = ContinuousClock.now
        var total = 0.0
        for id in ids {
            sqlite3_bind_int64(statement, 1, id)
            if sqlite3_step(statement) == SQLITE_ROW { total += RawContender.node(at: statement).x }
            sqlite3_reset(statement)
        }
        let elapsed = seconds(since: start)
        try check(total == Workload.lookupChecksum(ids), "raw async_read_sync checksum")
        return Measurement(seconds: elapsed)
    }
}
