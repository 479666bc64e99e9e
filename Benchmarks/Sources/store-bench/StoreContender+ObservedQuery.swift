import BenchSupport
import Foundation
import ObservableStore

extension StoreContender {
    /// The live query of the observed_query cases.
    private func liveQuery(_ workload: Workload) -> RecordQuery<NodeVO> {
        RecordQuery<NodeVO>().filter("x", .greaterThan, workload.observedQueryBound).order(by: "name").limit(Workload.observedQueryLimit)
    }

    /// Fills the table, indexes `x`, and starts observing the live query; returns the values' recorder.
    private func startObserving(_ workload: Workload) throws -> (ObservedRecorder, Task<Void, any Error>) {
        try fill(workload.tableSize)
        try store.write { try $0.execute("CREATE INDEX nodes_x ON nodes(x)") }
        let recorder = ObservedRecorder()
        let values = try store.values(of: liveQuery(workload))
        let task = Task { for try await element in values { recorder.record(element) } }
        try check(recorder.waitForSequence(atLeast: 1), "store live query's first value")
        return (recorder, task)
    }

    /// observed_query_irrelevant: commits outside the result, then one inside it to know the observer caught up.
    func observedQueryIrrelevant(_ workload: Workload) throws -> Measurement {
        let (recorder, task) = try startObserving(workload)
        defer { task.cancel() }
        let first = try required(recorder.last?.value.first, "store live query's first row")
        // A diagnostic (RESULTS.md): with BENCH_CHECKPOINT_FIRST set, the WAL is checkpointed before the
        // measured commits, so that they do not reach the automatic checkpoint.
        if ProcessInfo.processInfo.environment["BENCH_CHECKPOINT_FIRST"] != nil { _ = try store.checkpoint(.truncate) }
        let start = ContinuousClock.now
        for commit in 0..<Workload.observedQueryCommits {
            try store.write { try $0.execute("UPDATE nodes SET x = x + 0.5 WHERE id = ?", [workload.irrelevantRowID(commit)]) }
        }
        let last = try store.writeReturningCommit { try $0.execute("UPDATE nodes SET y = y + 1 WHERE id = ?", [first.id!]) }
        try check(recorder.waitForSequence(atLeast: last.sequence ?? .max), "store live query caught up")
        let elapsed = seconds(since: start)
        try check(recorder.count == 2, "store live query delivered \(recorder.count) values, expected 2")
        return Measurement(seconds: elapsed / Double(Workload.observedQueryCommits + 1))
    }

    /// observed_query_relevant: one commit at a time changes a row of the result; commit → new value.
    func observedQueryRelevant() throws -> Measurement {
        let (recorder, task) = try startObserving(.observedQueryRelevant)
        defer { task.cancel() }
        let rows = try required(recorder.last?.value, "store live query's first value")
        var expected = try required(recorder.last?.sequence, "store first sequence")
        for commit in 0..<Workload.observedQueryCommits {
            expected += 1
            let sequence = expected
            try store.write { tx in
                try tx.execute("UPDATE nodes SET y = y + 1 WHERE id = ?", [rows[commit % rows.count].id!])
                recorder.stamp(sequence)
            }
            try check(recorder.waitForSequence(atLeast: sequence), "store live query value \(sequence)")
        }
        return Measurement(p50: percentile(recorder.latencies, 0.5), p99: percentile(recorder.latencies, 0.99))
    }
}

/// `value`, or a failed run when it is nil.
func required<T>(_ value: T?, _ message: @autoclosure () -> String) throws -> T {
    guard let value else { throw WrongResult(message()) }
    return value
}

/// The values a live query delivered, with the latency of each from its commit's stamp.
final class ObservedRecorder: @unchecked Sendable {
    // @unchecked: guarded by `condition`.
    private let condition = NSCondition()
    private var values: [Observed<[NodeVO]>] = []
    private var stamps: [Int64: Double] = [:]
    private var measured: [Double] = []

    /// Stamps commit `sequence` just before it commits.
    func stamp(_ sequence: Int64) { condition.withLock { stamps[sequence] = wallClock() } }

    func record(_ value: Observed<[NodeVO]>) {
        let now = wallClock()
        condition.withLock {
            values.append(value)
            if let stamp = stamps[value.sequence] { measured.append(now - stamp) }
            condition.broadcast()
        }
    }

    var last: Observed<[NodeVO]>? { condition.withLock { values.last } }
    var count: Int { condition.withLock { values.count } }
    var latencies: [Double] { condition.withLock { measured } }

    func waitForSequence(atLeast sequence: Int64, timeout: Double = 120) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while (values.last?.sequence ?? 0) < sequence {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }
}
