import BenchSupport
import Foundation
import GRDB

/// GRDB 7.10 used as its documentation shows: Codable records, a DatabasePool, ValueObservation.
final class GRDBContender {
    struct Node: Codable, FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "nodes"
        var id: Int64?
        var name: String
        var x: Double
        var y: Double
        var color: String
        var width: Double
        var height: Double
        var createdAt: String
        var updatedAt: String

        enum CodingKeys: String, CodingKey {
            case id, name, x, y, color, width, height
            case createdAt = "created_at"
            case updatedAt = "updated_at"
        }

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

        init(_ node: BenchNode) {
            self.init(
                id: node.id, name: node.name, x: node.x, y: node.y, color: node.color, width: node.width,
                height: node.height, createdAt: node.createdAt, updatedAt: node.updatedAt)
        }

        init(id: Int64?, name: String, x: Double, y: Double, color: String, width: Double, height: Double, createdAt: String, updatedAt: String) {
            self.id = id
            self.name = name
            self.x = x
            self.y = y
            self.color = color
            self.width = width
            self.height = height
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    let pool: DatabasePool
    let queue = DispatchQueue(label: "grdb-observation")

    init(directory: URL) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: directory.appendingPathComponent("grdb.sqlite").path, configuration: configuration)
        try pool.write { db in try db.execute(sql: nodesTableSQL) }
    }

    func fill(_ count: Int) throws {
        let nodes = (0..<count).map { Node(BenchNode.make($0)) }
        try pool.write { db in for var node in nodes { try node.insert(db) } }
    }

    func sumX() throws -> Double {
        try pool.read { db in try Double.fetchOne(db, sql: "SELECT total(x) FROM nodes") ?? -1 }
    }

    func count() throws -> Int { try pool.read { try Node.fetchCount($0) } }

    func run(_ workload: Workload) throws -> Measurement {
        switch workload {
        case .bulkInsert, .bulkInsertObserved, .bulkInsertLogOff:
            let received = LatencyBox()
            let cancellable =
                workload == .bulkInsertObserved
                ? ValueObservation.tracking { try Node.fetchCount($0) }
                    .start(in: pool, scheduling: .async(onQueue: queue), onError: { _ in }, onChange: { _ in received.count() })
                : nil
            if cancellable != nil { _ = received.wait(for: 1) }  // the initial value
            let nodes = (0..<Workload.bulkRows).map { Node(BenchNode.make($0)) }
            let start = ContinuousClock.now
            try pool.write { db in for var node in nodes { try node.insert(db) } }
            let elapsed = seconds(since: start)
            try check(try count() == Workload.bulkRows, "grdb bulk insert count")
            if cancellable != nil { try check(received.wait(for: 2), "grdb observed the bulk commit") }
            withExtendedLifetime(cancellable) {}
            return Measurement(seconds: elapsed)
        case .smallTransactions, .smallTransactionsLogOff:
            let nodes = (0..<Workload.smallTransactionCount).map { Node(BenchNode.make($0)) }
            let start = ContinuousClock.now
            for var node in nodes { try pool.write { db in try node.insert(db) } }
            let elapsed = seconds(since: start)
            try check(try count() == Workload.smallTransactionCount, "grdb small_tx count")
            return Measurement(seconds: elapsed)
        case .fetchAll, .memoryFetchAll:
            try fill(Workload.bulkRows)
            let start = ContinuousClock.now
            let all = try pool.read { try Node.fetchAll($0) }
            let elapsed = seconds(since: start)
            let expectedSum = try sumX()
            try check(all.count == Workload.bulkRows && all.reduce(0) { $0 + $1.x } == expectedSum, "grdb fetch_all result")
            return workload == .memoryFetchAll ? Measurement(peakBytes: peakResidentBytes()) : Measurement(seconds: elapsed)
        case .fetchByID:
            try fill(Workload.bulkRows)
            let ids = Workload.lookupIDs()
            let start = ContinuousClock.now
            var total = 0.0
            for id in ids { total += try pool.read { try Node.fetchOne($0, key: id) }?.x ?? 0 }
            let elapsed = seconds(since: start)
            try check(total == Workload.lookupChecksum(ids), "grdb fetch_by_id checksum")
            return Measurement(seconds: elapsed)
        case .updateMany, .updateManyLogOff:
            try fill(Workload.bulkRows)
            let before = try sumX()
            let records = try pool.read { try Node.filter(Column("id") <= Workload.updates).fetchAll($0) }
            let start = ContinuousClock.now
            try pool.write { db in
                for var record in records {
                    record.x += 1
                    record.updatedAt = "2026-11-22T11:00:00.000Z"
                    try record.update(db, columns: ["x", "updated_at"])
                }
            }
            let elapsed = seconds(since: start)
            try check(try sumX() == before + Double(Workload.updates), "grdb update_many sum")
            return Measurement(seconds: elapsed)
        case .observeLatencyImmediate:
            return Measurement(unsupported: "no synchronous ValueObservation")
        case .observeLatency:
            let latencies = LatencyBox()
            let stamps = Stamps()
            // Without removeDuplicates, an initial fetch that runs after the first commit and that commit's own
            // notification both deliver a count of 1 (seen once: 2,001 events).
            let cancellable = ValueObservation.tracking { try Node.fetchCount($0) }.removeDuplicates()
                .start(in: pool, scheduling: .async(onQueue: queue), onError: { _ in }) { count in
                    if count > 0 { latencies.add(wallClock() - stamps.get(Int64(count))) }
                }
            for index in 0..<Workload.latencyCommits {
                var node = Node(BenchNode.make(index))
                try pool.write { db in
                    try node.insert(db)
                    stamps.set(Int64(index + 1), wallClock())
                }
                _ = latencies.wait(for: index + 1, timeout: 5)  // one commit at a time: ValueObservation coalesces
            }
            try check(latencies.all.count == Workload.latencyCommits, "grdb latency events \(latencies.all.count)")
            withExtendedLifetime(cancellable) {}
            return Measurement(p50: percentile(latencies.all, 0.5), p99: percentile(latencies.all, 0.99))
        case .observeFanout, .memoryListeners:
            let received = LatencyBox()
            let cancellables = (0..<Workload.fanoutListeners).map { _ in
                ValueObservation.tracking { try Node.fetchCount($0) }
                    .start(in: pool, scheduling: .async(onQueue: queue), onError: { _ in }) { _ in received.count() }
            }
            _ = received.wait(for: Workload.fanoutListeners)  // initial values
            let start = ContinuousClock.now
            for index in 0..<Workload.fanoutCommits {
                var node = Node(BenchNode.make(index))
                try pool.write { db in try node.insert(db) }
                _ = received.wait(for: Workload.fanoutListeners * (index + 2), timeout: 30)
            }
            let elapsed = seconds(since: start)
            try check(received.wait(for: Workload.fanoutListeners * (Workload.fanoutCommits + 1), timeout: 1), "grdb fanout events")
            withExtendedLifetime(cancellables) {}
            if workload == .memoryListeners { return Measurement(peakBytes: peakResidentBytes()) }
            return Measurement(seconds: elapsed / Double(Workload.fanoutCommits))
        case .observedQueryIrrelevant10k, .observedQueryIrrelevant100k, .observedQueryIrrelevant1M:
            return try observedQueryIrrelevant(workload)
        case .observedQueryRelevant:
            return try observedQueryRelevant()
        case .bigTable10k, .bigTable100k, .bigTable1M:
            try fill(workload.tableSize)
            // ValueObservation needs the rows: it refetches the table after each commit.
            let received = LatencyBox()
            let cancellable = ValueObservation.tracking { try Node.fetchAll($0) }
                .start(in: pool, scheduling: .async(onQueue: queue), onError: { _ in }) { _ in received.count() }
            _ = received.wait(for: 1)
            let commits = workload == .bigTable1M ? 10 : workload == .bigTable100k ? 50 : Workload.bigTableCommits
            let start = ContinuousClock.now
            for commit in 0..<commits {
                try pool.write { db in
                    try db.execute(sql: "UPDATE nodes SET x = x + 1 WHERE id = ?", arguments: [commit * 37 % workload.tableSize + 1])
                }
                _ = received.wait(for: commit + 2, timeout: 60)
            }
            let elapsed = seconds(since: start)
            withExtendedLifetime(cancellable) {}
            return Measurement(seconds: elapsed / Double(commits))
        case .handoffFloor, .handoffOpenLoop, .loggedCommitFloor, .smallTransactionsLoggedFloor, .updateManyFullCapture,
            .updateManyRowCapture, .updateManyHookFloor, .bulkInsertRowCapture:
            return Measurement(unsupported: "a raw-SQLite reference: see raw")
        case .macroRecordInsert, .macroRecordFetch:
            return Measurement(unsupported: "a store case: the @Record macro against NodeVO's hand-written coding")
        case .crossProcess:
            return Measurement(unsupported: "GRDB documents that its observation does not see other processes")
        case .observeTracking:
            return try observeTracking()
        case .asyncRead, .asyncReadSync:
            return try asyncRead(workload)
        case .observeFanoutFiltered, .observeFanoutFilteredSingle:
            return Measurement(unsupported: "a store case: the cost of the store's listener index")
        case .bigTransaction, .bigTransactionLogOff:
            return Measurement(unsupported: "a store case: the change log of a huge transaction against no log")
        }
    }
}
