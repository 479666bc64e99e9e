import Foundation
import ObservableStore

extension StoreContender {
    /// async_read with `store.read` async, async_read_sync with the same read made synchronously.
    func asyncRead(_ workload: Workload) throws -> Measurement {
        try fill(Workload.asyncReadRows)
        let ids = Workload.asyncReadIDs()
        let store = self.store
        let start = ContinuousClock.now
        let total: Double
        if workload == .asyncRead {
            total = try waitForTask {
                try await Workload.fetchConcurrently(ids) { id in
                    try await store.read { tx in try tx.fetch(NodeVO.self, key: id)?.x ?? 0 }
                }
            }
        } else {
            var sum = 0.0
            for id in ids { sum += try store.read { tx in try tx.fetch(NodeVO.self, key: id)?.x ?? 0 } }
            total = sum
        }
        let elapsed = seconds(since: start)
        try check(total == Workload.lookupChecksum(ids), "store \(workload.rawValue) checksum")
        return Measurement(seconds: elapsed)
    }
}
