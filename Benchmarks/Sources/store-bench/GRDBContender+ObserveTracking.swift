import BenchSupport
import Foundation
import GRDB

extension GRDBContender {
    /// observe_tracking with `ValueObservation.tracking` (GRDB records the region its read uses too).
    func observeTracking() throws -> Measurement {
        try fill(ObserveTrackingCase.rows)
        try pool.write { db in try db.execute(sql: ObserveTrackingCase.schema) }
        let unobserved = try timeAuditCommits()
        let runs = RunCounter()
        let delivered = LatencyBox()
        let lastCount = LockedCount()
        let observation = ValueObservation.tracking { db -> [String] in
            runs.increment()
            return try Row.fetchAll(db, sql: ObserveTrackingCase.joinSQL).map { "\($0[0] as String):\($0[1] as String)" }
        }.removeDuplicates()
        let cancellable = observation.start(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "grdb-tracking")), onError: { _ in }) {
            value in
            lastCount.set(value.count)
            delivered.count()
        }
        try check(delivered.wait(for: 1, timeout: 30), "grdb observe_tracking first value")
        usleep(200_000)  // GRDB's pool may read a second time as it starts observing: count from here
        let runsAtFirstValue = runs.value
        let firstCount = lastCount.value
        let start = ContinuousClock.now
        let writerSeconds = try timeAuditCommits()
        try pool.write { db in try db.execute(sql: ObserveTrackingCase.relevantSQL) }
        try check(delivered.wait(for: 2, timeout: 30), "grdb observe_tracking value after the relevant commit")
        let elapsed = seconds(since: start)
        try check(lastCount.value == firstCount + 1, "grdb observe_tracking: the last value has the new row")
        withExtendedLifetime(cancellable) {}
        try ObserveTrackingCase.report(
            "grdb", runs: runs.value, runsAtFirstValue: runsAtFirstValue, writerSeconds: writerSeconds, unobservedSeconds: unobserved,
            mustNotRerun: false)
        return Measurement(seconds: elapsed / Double(ObserveTrackingCase.commits))
    }

    /// Seconds for observe_tracking's commits to `audit`.
    private func timeAuditCommits() throws -> Double {
        let start = ContinuousClock.now
        for index in 0..<ObserveTrackingCase.commits {
            try pool.write { db in try db.execute(sql: ObserveTrackingCase.auditSQL, arguments: ["entry \(index)"]) }
        }
        return seconds(since: start)
    }
}
