import BenchSupport
import Foundation
import ObservableStore

extension StoreContender {
    /// big_transaction: one transaction inserting `Workload.bigTransactionRows` nodes, made one at a time (no array
    /// of them, so that memory shows the store's own cost). Tracked: logged in pieces and delivered to a listener
    /// of `nodes`, timed until the listener has the last piece and checked to hold every row once. Untracked:
    /// timed until `write` returns. Reports the seconds and the process's peak RSS.
    func bigTransaction(tracked: Bool) throws -> Measurement {
        let rows = Workload.bigTransactionRows
        let received = LatencyBox()
        let pieces = LatencyBox()  // each piece's change count
        let token =
            tracked
            ? store.listen("observer", filter: .table("nodes")) { event in
                guard case .commit(let commit) = event else { return }
                pieces.add(Double(commit.changes.count))
                if commit.isLastPiece { received.count() }
            } : nil
        let start = ContinuousClock.now
        try store.write { tx in
            for index in 0..<rows { try tx.insert(StoreContender.node(.make(index))) }
        }
        if tracked { try check(received.wait(for: 1, timeout: 600), "store delivered the big commit") }
        let elapsed = seconds(since: start)
        try check(try store.repository(NodeVO.self).count() == rows, "store big_transaction count")
        if tracked { try check(pieces.all.reduce(0, +) == Double(rows), "store delivered every change once") }
        withExtendedLifetime(token) {}
        return Measurement(seconds: elapsed, peakBytes: peakResidentBytes())
    }
}
