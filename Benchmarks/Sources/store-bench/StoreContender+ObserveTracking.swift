import BenchSupport
import Foundation
import ObservableStore

extension StoreContender {
    /// observe_tracking with `store.observe(tracking:)`.
    func observeTracking() throws -> Measurement {
        try fill(ObserveTrackingCase.rows)
        try store.write { tx in try tx.execute(ObserveTrackingCase.schema) }
        let unobserved = try timeAuditCommits()
        let runs = RunCounter()
        let values = try store.observe(tracking: { tx in
            runs.increment()
            return try tx.fetchRows(ObserveTrackingCase.joinSQL).map { "\($0[0]):\($0[1])" }
        })
        let delivered = LatencyBox()
        let lastCount = LockedCount()
        let consumer = Task {
            for try await element in values {
                lastCount.set(element.value.count)
                delivered.count()
            }
        }
        defer { consumer.cancel() }
        try check(delivered.wait(for: 1, timeout: 30), "store observe_tracking first value")
        usleep(200_000)  // as in GRDB's case: let the start settle, then count
        let runsAtFirstValue = runs.value
        let firstCount = lastCount.value
        let start = ContinuousClock.now
        let writerSeconds = try timeAuditCommits()
        try store.write { tx in try tx.execute(ObserveTrackingCase.relevantSQL) }
        try check(delivered.wait(for: 2, timeout: 30), "store observe_tracking value after the relevant commit")
        let elapsed = seconds(since: start)
        try check(lastCount.value == firstCount + 1, "store observe_tracking: the last value has the new row")
        try ObserveTrackingCase.report(
            "store", runs: runs.value, runsAtFirstValue: runsAtFirstValue, writerSeconds: writerSeconds, unobservedSeconds: unobserved,
            mustNotRerun: true)
        return Measurement(seconds: elapsed / Double(ObserveTrackingCase.commits))
    }

    /// Seconds for observe_tracking's commits to `audit`.
    private func timeAuditCommits() throws -> Double {
        let start = ContinuousClock.now
        for index in 0..<ObserveTrackingCase.commits {
            try store.write { tx in try tx.execute(ObserveTrackingCase.auditSQL, ["entry \(index)"]) }
        }
        return seconds(since: start)
    }
}

/// An integer shared between threads.
final class LockedCount: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var stored = 0
    func set(_ value: Int) { lock.withLock { stored = value } }
    var value: Int { lock.withLock { stored } }
}
