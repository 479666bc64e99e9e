import BenchSupport
import Foundation
import GRDB

extension GRDBContender {
    /// The live query of the observed_query cases.
    private func liveQuery(_ workload: Workload) -> QueryInterfaceRequest<Node> {
        Node.filter(Column("x") > workload.observedQueryBound).order(Column("name")).limit(Workload.observedQueryLimit)
    }

    /// observed_query_irrelevant: ValueObservation re-runs the query after every commit to `nodes`; each commit
    /// waits for that fetch (fewer commits at the larger sizes, as big_table_observe does).
    func observedQueryIrrelevant(_ workload: Workload) throws -> Measurement {
        try fill(workload.tableSize)
        try pool.write { try $0.execute(sql: "CREATE INDEX nodes_x ON nodes(x)") }
        let fetches = LatencyBox()
        let request = liveQuery(workload)
        let cancellable = ValueObservation.tracking { db -> [Node] in
            defer { fetches.count() }
            return try request.fetchAll(db)
        }.start(in: pool, scheduling: .async(onQueue: queue), onError: { _ in }) { _ in }
        try check(fetches.wait(for: 1), "grdb live query's first value")
        let commits = workload == .observedQueryIrrelevant1M ? 10 : workload == .observedQueryIrrelevant100k ? 50 : Workload.observedQueryCommits
        let start = ContinuousClock.now
        for commit in 0..<commits {
            try pool.write { db in
                try db.execute(sql: "UPDATE nodes SET x = x + 0.5 WHERE id = ?", arguments: [workload.irrelevantRowID(commit)])
            }
            try check(fetches.wait(for: commit + 2, timeout: 60), "grdb live query re-run \(commit)")
        }
        let elapsed = seconds(since: start)
        withExtendedLifetime(cancellable) {}
        return Measurement(seconds: elapsed / Double(commits))
    }

    /// observed_query_relevant: one commit at a time changes a row of the result; commit → new value.
    func observedQueryRelevant() throws -> Measurement {
        try fill(Workload.observedQueryRelevant.tableSize)
        try pool.write { try $0.execute(sql: "CREATE INDEX nodes_x ON nodes(x)") }
        let latencies = LatencyBox()
        let stamps = Stamps()
        let values = LatencyBox()
        let request = liveQuery(.observedQueryRelevant)
        let first = LockedRows()
        // The values are told apart by the sum of y, which each commit raises by one.
        let ySum: @Sendable ([Node]) -> Int64 = { nodes in Int64(nodes.reduce(0) { $0 + Int($1.y) }) }
        let cancellable = ValueObservation.tracking { try request.fetchAll($0) }.removeDuplicates { ySum($0) == ySum($1) }
            .start(in: pool, scheduling: .async(onQueue: queue), onError: { _ in }) { nodes in
                if first.rows.isEmpty { first.rows = nodes } else { latencies.add(wallClock() - stamps.get(ySum(nodes))) }
                values.count()
            }
        try check(values.wait(for: 1), "grdb live query's first value")
        let rows = first.rows
        var total = ySum(rows)
        for commit in 0..<Workload.observedQueryCommits {
            total += 1
            let stamp = total
            try pool.write { db in
                try db.execute(sql: "UPDATE nodes SET y = y + 1 WHERE id = ?", arguments: [rows[commit % rows.count].id])
                stamps.set(stamp, wallClock())
            }
            try check(values.wait(for: commit + 2, timeout: 60), "grdb live query value \(commit)")
        }
        withExtendedLifetime(cancellable) {}
        return Measurement(p50: percentile(latencies.all, 0.5), p99: percentile(latencies.all, 0.99))
    }
}

/// The first value of a GRDB observation, set on its queue and read by the benchmark.
final class LockedRows: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var stored: [GRDBContender.Node] = []
    var rows: [GRDBContender.Node] {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
