import BenchSupport
import Foundation
import ObservableStore

/// This project's public API, as a user would write it.
final class StoreContender {
    let store: SQLiteStore
    let path: String

    init(directory: URL, workload: Workload) throws {
        path = directory.appendingPathComponent("store.sqlite").path
        var configuration = SQLiteStoreConfiguration()
        configuration.tracksChanges = !workload.storeLogOff
        store = try SQLiteStore(path: path, configuration: configuration)
    }

    deinit { store.close() }

    static func node(_ node: BenchNode) -> NodeVO {
        NodeVO(
            id: node.id, name: node.name, x: node.x, y: node.y, color: node.color,
            createdAt: Date(timeIntervalSince1970: 1_795_341_600), updatedAt: Date(timeIntervalSince1970: 1_795_341_600))
    }

    func fill(_ count: Int) throws {
        let nodes = (0..<count).map { StoreContender.node(.make($0)) }
        try store.write { tx in for node in nodes { try tx.insert(node) } }
    }

    func sumX() throws -> Double {
        try store.read { try $0.fetchValue("SELECT total(x) FROM nodes") }.flatMap(Double.fromDatabaseValue) ?? -1
    }

    func run(_ workload: Workload) throws -> Measurement {
        let nodes = store.repository(NodeVO.self)
        switch workload {
        case .bulkInsert, .bulkInsertObserved, .bulkInsertLogOff:
            let received = LatencyBox()
            let token = workload == .bulkInsertObserved ? store.listen("observer", to: NodeVO.self) { _ in received.count() } : nil
            let records = (0..<Workload.bulkRows).map { StoreContender.node(.make($0)) }
            let start = ContinuousClock.now
            try store.write { tx in for record in records { try tx.insert(record) } }
            let elapsed = seconds(since: start)
            try check(try nodes.count() == Workload.bulkRows, "store bulk insert count")
            if token != nil { try check(received.wait(for: 1), "store observed the bulk commit") }
            withExtendedLifetime(token) {}
            return Measurement(seconds: elapsed)
        case .smallTransactions, .smallTransactionsLogOff:
            let records = (0..<Workload.smallTransactionCount).map { StoreContender.node(.make($0)) }
            let start = ContinuousClock.now
            for record in records { try nodes.insert(record) }
            let elapsed = seconds(since: start)
            try check(try nodes.count() == Workload.smallTransactionCount, "store small_tx count")
            return Measurement(seconds: elapsed)
        case .fetchAll, .memoryFetchAll:
            try fill(Workload.bulkRows)
            let start = ContinuousClock.now
            let all = try nodes.fetchAll()
            let elapsed = seconds(since: start)
            let expectedSum = try sumX()
            try check(all.count == Workload.bulkRows && all.reduce(0) { $0 + $1.x } == expectedSum, "store fetch_all result")
            return workload == .memoryFetchAll ? Measurement(peakBytes: peakResidentBytes()) : Measurement(seconds: elapsed)
        case .fetchByID:
            try fill(Workload.bulkRows)
            let ids = Workload.lookupIDs()
            let start = ContinuousClock.now
            var total = 0.0
            for id in ids { total += try nodes.fetch(id)?.x ?? 0 }
            let elapsed = seconds(since: start)
            try check(total == Workload.lookupChecksum(ids), "store fetch_by_id checksum")
            return Measurement(seconds: elapsed)
        case .updateMany, .updateManyLogOff:
            try fill(Workload.bulkRows)
            let before = try sumX()
            let records = try nodes.fetchAll(RecordQuery().filter("id", .lessThanOrEqual, Workload.updates))
            let start = ContinuousClock.now
            // The same two columns as raw's statement: the new position and the time of the change.
            let changedAt = Date(timeIntervalSince1970: 1_795_345_200)
            try store.write { tx in
                for var record in records {
                    record.x += 1
                    record.updatedAt = changedAt
                    try tx.update(record, columns: ["x", "updated_at"])
                }
            }
            let elapsed = seconds(since: start)
            try check(try sumX() == before + Double(Workload.updates), "store update_many sum")
            return Measurement(seconds: elapsed)
        case .observeLatency, .observeLatencyImmediate:
            let latencies = LatencyBox()
            let stamps = Stamps()
            let options = ListenerOptions(immediate: workload == .observeLatencyImmediate)
            let token = store.listen("latency", filter: .table("nodes"), options: options) { event in
                if case .commit(let commit) = event { latencies.add(wallClock() - stamps.get(commit.sequence)) }
            }
            for index in 0..<Workload.latencyCommits {
                try store.write { tx in
                    try tx.insert(StoreContender.node(.make(index)))
                    stamps.set(Int64(index + 1), wallClock())  // sequence = index + 1 in a fresh store
                }
            }
            try check(latencies.wait(for: Workload.latencyCommits), "store latency events")
            withExtendedLifetime(token) {}
            return Measurement(p50: percentile(latencies.all, 0.5), p99: percentile(latencies.all, 0.99))
        case .observeFanout, .memoryListeners:
            let received = LatencyBox()
            let tokens = (0..<Workload.fanoutListeners).map { index in
                store.listen("view-\(index)", filter: .table("nodes")) { _ in received.count() }
            }
            let records = (0..<Workload.fanoutCommits).map { StoreContender.node(.make($0)) }
            let start = ContinuousClock.now
            for record in records { try nodes.insert(record) }
            try check(received.wait(for: Workload.fanoutListeners * Workload.fanoutCommits), "store fanout events")
            let elapsed = seconds(since: start)
            withExtendedLifetime(tokens) {}
            if workload == .memoryListeners { return Measurement(peakBytes: peakResidentBytes()) }
            return Measurement(seconds: elapsed / Double(Workload.fanoutCommits))
        case .observeFanoutFiltered, .observeFanoutFilteredSingle:
            return try filteredFanout(listeners: workload == .observeFanoutFiltered ? Workload.filteredFanoutListeners : 1)
        case .observedQueryIrrelevant10k, .observedQueryIrrelevant100k, .observedQueryIrrelevant1M:
            return try observedQueryIrrelevant(workload)
        case .observedQueryRelevant:
            return try observedQueryRelevant()
        case .bigTable10k, .bigTable100k, .bigTable1M:
            try fill(workload.tableSize)
            // The changed rows come with the event: nothing to refetch.
            let received = LatencyBox()
            let token = store.listen("changed-rows", to: NodeVO.self) { event in
                if case .commit(let commit) = event, let node = commit.changes.first?.new, node.x > 0 { received.count() }
            }
            let start = ContinuousClock.now
            for commit in 0..<Workload.bigTableCommits {
                let id = commit * 37 % workload.tableSize + 1
                try store.write { try $0.execute("UPDATE nodes SET x = x + 1 WHERE id = ?", [id]) }
            }
            try check(received.wait(for: Workload.bigTableCommits), "store big table events")
            let elapsed = seconds(since: start)
            withExtendedLifetime(token) {}
            return Measurement(seconds: elapsed / Double(Workload.bigTableCommits))
        case .handoffFloor, .handoffOpenLoop, .loggedCommitFloor, .smallTransactionsLoggedFloor, .updateManyFullCapture,
            .updateManyRowCapture, .updateManyHookFloor, .bulkInsertRowCapture:
            return Measurement(unsupported: "a raw-SQLite reference: see raw")
        case .crossProcess:
            return try crossProcess()
        case .observeTracking:
            return try observeTracking()
        case .asyncRead, .asyncReadSync:
            return try asyncRead(workload)
        case .macroRecordInsert, .macroRecordFetch:
            return try macroRecord(workload)
        case .bigTransaction, .bigTransactionLogOff:
            return try bigTransaction(tracked: workload == .bigTransaction)
        }
    }

    /// `listeners` listeners, each filtered to one key of `nodes` (keys 1...listeners, or only the key every
    /// commit updates); latency from just before COMMIT to the handler of the one listener each commit matches.
    private func filteredFanout(listeners: Int) throws -> Measurement {
        try fill(Workload.filteredFanoutListeners)  // commit 1
        let latencies = LatencyBox()
        let strays = LatencyBox()
        let stamps = Stamps()
        let target = Workload.filteredFanoutKey
        let keys = listeners == 1 ? [target] : (1...Int64(listeners)).map { $0 }
        let start = ContinuousClock.now
        let tokens = keys.map { key in
            store.listen("row-\(key)", filter: ChangeFilter(tables: ["nodes"], keys: [.integer(key)])) { event in
                guard case .commit(let commit) = event else { return }
                if key == target { latencies.add(wallClock() - stamps.get(commit.sequence)) } else { strays.add(0) }
            }
        }
        let registration = seconds(since: start)
        FileHandle.standardError.write(Data(String(format: "registering %d listeners: %.1f ms\n", listeners, registration * 1e3).utf8))
        for index in 0..<Workload.latencyCommits {
            try store.write { tx in
                try tx.execute("UPDATE nodes SET x = ? WHERE id = ?", [Double(-index), target])
                stamps.set(Int64(index + 2), wallClock())  // sequence = index + 2 after the fill
            }
        }
        try check(latencies.wait(for: Workload.latencyCommits), "store filtered fanout events")
        try check(strays.all.isEmpty, "store filtered fanout: only the matching listener is called")
        withExtendedLifetime(tokens) {}
        return Measurement(p50: percentile(latencies.all, 0.5), p99: percentile(latencies.all, 0.99))
    }

    /// A child process writes; this one listens. Latency from just before the child's COMMIT
    /// (stamped into the row) to the handler here.
    private func crossProcess() throws -> Measurement {
        let latencies = LatencyBox()
        let token = store.listen("cross", filter: .table("nodes")) { event in
            guard case .commit(let commit) = event else { return }
            let now = wallClock()
            for change in commit.changes { if let sent = change.new?.value("y", as: Double.self) { latencies.add(now - sent) } }
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["cross-writer", path, String(Workload.latencyCommits)]
        try child.run()
        child.waitUntilExit()
        try check(child.terminationStatus == 0, "cross-process writer failed")
        try check(latencies.wait(for: Workload.latencyCommits, timeout: 30), "cross-process events")
        withExtendedLifetime(token) {}
        return Measurement(p50: percentile(latencies.all, 0.5), p99: percentile(latencies.all, 0.99))
    }

    /// The child of `cross_process`: one commit every 2 ms, each row stamped with the wall clock in `y`.
    static func crossWriter(path: String, commits: Int) throws {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        for index in 0..<commits {
            try store.write { tx in try tx.insert(NodeVO(name: "c\(index)", x: 0, y: wallClock())) }
            usleep(2_000)
        }
    }
}

/// Commit sequence → the wall time just before its COMMIT.
final class Stamps: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var stamps: [Int64: Double] = [:]
    func set(_ sequence: Int64, _ time: Double) { lock.withLock { stamps[sequence] = time } }
    func get(_ sequence: Int64) -> Double { lock.withLock { stamps[sequence] ?? 0 } }
}
