import BenchSupport
import CSQLiteRaw
import Foundation

/// The physical limit: the SQLite C API used directly, prepared statements reused, text bound in place
/// (`SQLITE_STATIC`, since run 9; `SQLITE_TRANSIENT` copies before), and the update and commit hooks for events.
final class RawContender {
    let db: OpaquePointer
    let path: String

    init(directory: URL) throws {
        path = directory.appendingPathComponent("raw.sqlite").path
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let handle
        else { throw WrongResult("cannot open \(path)") }
        db = handle
        try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
        try exec(nodesTableSQL)
    }

    deinit { sqlite3_close_v2(db) }

    func exec(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw WrongResult(message.map { String(cString: $0) } ?? "exec failed")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw WrongResult(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    private static let insertSQL =
        "INSERT INTO nodes (id, name, x, y, color, width, height, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"

    private static let selectSQL = "SELECT id, name, x, y, color, width, height, created_at, updated_at FROM nodes"

    /// The current row of a statement running `selectSQL`, read as the other contenders read it: nine columns.
    static func node(at statement: OpaquePointer) -> BenchNode {
        BenchNode(
            id: sqlite3_column_int64(statement, 0), name: String(cString: sqlite3_column_text(statement, 1)),
            x: sqlite3_column_double(statement, 2), y: sqlite3_column_double(statement, 3),
            color: String(cString: sqlite3_column_text(statement, 4)), width: sqlite3_column_double(statement, 5),
            height: sqlite3_column_double(statement, 6), createdAt: String(cString: sqlite3_column_text(statement, 7)),
            updatedAt: String(cString: sqlite3_column_text(statement, 8)))
    }

    /// Binds the text in place (`SQLITE_STATIC`, valid while the step runs), not copied by SQLite: the
    /// store binds its own copy so, and raw is the limit.
    func insert(_ node: BenchNode, with statement: OpaquePointer) throws {
        sqlite3_bind_int64(statement, 1, node.id)
        sqlite3_bind_double(statement, 3, node.x)
        sqlite3_bind_double(statement, 4, node.y)
        sqlite3_bind_double(statement, 6, node.width)
        sqlite3_bind_double(statement, 7, node.height)
        let done = node.name.withCString { name in
            node.color.withCString { color in
                node.createdAt.withCString { createdAt in
                    node.updatedAt.withCString { updatedAt in
                        sqlite3_bind_text(statement, 2, name, -1, nil)
                        sqlite3_bind_text(statement, 5, color, -1, nil)
                        sqlite3_bind_text(statement, 8, createdAt, -1, nil)
                        sqlite3_bind_text(statement, 9, updatedAt, -1, nil)
                        defer { sqlite3_reset(statement) }
                        return sqlite3_step(statement) == SQLITE_DONE
                    }
                }
            }
        }
        guard done else { throw WrongResult(String(cString: sqlite3_errmsg(db))) }
    }

    private static let updateSQL = "UPDATE nodes SET x = ?, updated_at = ? WHERE id = ?"

    /// update_many's updates, each in its own step of `statement` (``updateSQL``): rows 1...50,000 get
    /// x + 1 and a new `updated_at`.
    func updateEachRow(with statement: OpaquePointer) throws {
        try "2026-11-22T11:00:00.000Z".withCString { updatedAt in
            for id in 1...Workload.updates {
                sqlite3_bind_double(statement, 1, Double(id - 1) + 1)
                sqlite3_bind_text(statement, 2, updatedAt, -1, nil)  // SQLITE_STATIC: read in place
                sqlite3_bind_int64(statement, 3, Int64(id))
                guard sqlite3_step(statement) == SQLITE_DONE else { throw WrongResult("raw update failed") }
                sqlite3_reset(statement)
            }
        }
    }

    /// Creates the log table of the logged reference cases; returns the statement that adds a row to it.
    func prepareCommitLog() throws -> OpaquePointer {
        try exec("CREATE TABLE commit_log (seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        return try prepare("INSERT INTO commit_log (payload) VALUES (?)")
    }

    /// Adds one log row holding `payload`, which SQLite reads in place, as the store binds its own payload.
    func insertLogRow(_ payload: [UInt8], with log: OpaquePointer) throws {
        let inserted = payload.withUnsafeBytes { bytes in
            sqlite3_bind_blob64(log, 1, bytes.baseAddress, sqlite3_uint64(bytes.count), nil)
            defer { sqlite3_reset(log) }
            return sqlite3_step(log) == SQLITE_DONE
        }
        guard inserted else { throw WrongResult("raw log row failed") }
    }

    /// Runs `body` in one transaction with `capture` as the preupdate hook, then writes what it captured as one
    /// log row before COMMIT. Returns the seconds from installing the hook to COMMIT's return.
    func timedCapturedTransaction(_ capture: CaptureBuffer, _ body: () throws -> Void) throws -> Double {
        let log = try prepareCommitLog()
        defer { sqlite3_finalize(log) }
        let start = ContinuousClock.now
        sqlite3_preupdate_hook(db, CaptureBuffer.hook, Unmanaged.passUnretained(capture).toOpaque())
        try exec("BEGIN IMMEDIATE")
        try body()
        sqlite3_preupdate_hook(db, nil, nil)
        try insertLogRow(capture.bytes, with: log)
        try exec("COMMIT")
        return seconds(since: start)
    }

    func fill(_ count: Int) throws {
        let statement = try prepare(RawContender.insertSQL)
        defer { sqlite3_finalize(statement) }
        try exec("BEGIN IMMEDIATE")
        for index in 0..<count { try insert(.make(index), with: statement) }
        try exec("COMMIT")
    }

    func count() throws -> Int {
        let statement = try prepare("SELECT count(*) FROM nodes")
        defer { sqlite3_finalize(statement) }
        sqlite3_step(statement)
        return Int(sqlite3_column_int64(statement, 0))
    }

    func sumX() throws -> Double {
        let statement = try prepare("SELECT total(x) FROM nodes")
        defer { sqlite3_finalize(statement) }
        sqlite3_step(statement)
        return sqlite3_column_double(statement, 0)
    }

    /// The handlers called after each commit (the raw contender's "listeners").
    private var afterCommit: [(Double) -> Void] = []

    /// One write transaction inserting `node`, then the handlers, with the time taken just before COMMIT.
    func commitOne(_ node: BenchNode, statement: OpaquePointer) throws {
        try exec("BEGIN IMMEDIATE")
        try insert(node, with: statement)
        let beforeCommit = wallClock()
        try exec("COMMIT")
        for handler in afterCommit { handler(beforeCommit) }
    }

    func run(_ workload: Workload) throws -> Measurement {
        switch workload {
        case .bulkInsert, .bulkInsertObserved, .bulkInsertLogOff:
            let events = RowBox()
            if workload == .bulkInsertObserved {
                // The raw way to observe: an update hook collecting the changed rowids.
                sqlite3_update_hook(db, { context, _, _, _, rowid in
                    Unmanaged<RowBox>.fromOpaque(context!).takeUnretainedValue().rows.append(rowid)
                }, Unmanaged.passUnretained(events).toOpaque())
            }
            let statement = try prepare(RawContender.insertSQL)
            let nodes = (0..<Workload.bulkRows).map(BenchNode.make)
            let start = ContinuousClock.now
            try exec("BEGIN IMMEDIATE")
            for node in nodes { try insert(node, with: statement) }
            try exec("COMMIT")
            let elapsed = seconds(since: start)
            sqlite3_update_hook(db, nil, nil)
            sqlite3_finalize(statement)
            try check(try count() == Workload.bulkRows, "raw bulk insert count")
            if workload == .bulkInsertObserved { try check(events.rows.count == Workload.bulkRows, "raw observed rows") }
            withExtendedLifetime(events) {}
            return Measurement(seconds: elapsed)
        case .bulkInsertRowCapture:
            let statement = try prepare(RawContender.insertSQL)
            let capture = CaptureBuffer()
            let nodes = (0..<Workload.bulkRows).map(BenchNode.make)
            let elapsed = try timedCapturedTransaction(capture) {
                for node in nodes { try insert(node, with: statement) }
            }
            sqlite3_finalize(statement)
            try check(capture.changes == Workload.bulkRows, "raw capture saw every insert")
            try check(try count() == Workload.bulkRows, "raw bulk insert capture count")
            return Measurement(seconds: elapsed)
        case .smallTransactions, .smallTransactionsLogOff:
            let statement = try prepare(RawContender.insertSQL)
            let nodes = (0..<Workload.smallTransactionCount).map(BenchNode.make)
            let start = ContinuousClock.now
            for node in nodes {
                try exec("BEGIN IMMEDIATE")
                try insert(node, with: statement)
                try exec("COMMIT")
            }
            let elapsed = seconds(since: start)
            sqlite3_finalize(statement)
            try check(try count() == Workload.smallTransactionCount, "raw small_tx count")
            return Measurement(seconds: elapsed)
        case .fetchAll, .memoryFetchAll:
            try fill(Workload.bulkRows)
            let statement = try prepare(RawContender.selectSQL)
            let start = ContinuousClock.now
            var nodes: [BenchNode] = []
            while sqlite3_step(statement) == SQLITE_ROW { nodes.append(RawContender.node(at: statement)) }
            let elapsed = seconds(since: start)
            sqlite3_finalize(statement)
            let expectedSum = try sumX()
            try check(nodes.count == Workload.bulkRows && nodes.reduce(0) { $0 + $1.x } == expectedSum, "raw fetch_all result")
            return workload == .memoryFetchAll ? Measurement(peakBytes: peakResidentBytes()) : Measurement(seconds: elapsed)
        case .fetchByID:
            try fill(Workload.bulkRows)
            let ids = Workload.lookupIDs()
            let statement = try prepare(RawContender.selectSQL + " WHERE id = ?")
            let start = ContinuousClock.now
            var total = 0.0
            for id in ids {
                sqlite3_bind_int64(statement, 1, id)
                if sqlite3_step(statement) == SQLITE_ROW { total += RawContender.node(at: statement).x }
                sqlite3_reset(statement)
            }
            let elapsed = seconds(since: start)
            sqlite3_finalize(statement)
            try check(total == Workload.lookupChecksum(ids), "raw fetch_by_id checksum")
            return Measurement(seconds: elapsed)
        case .updateMany, .updateManyLogOff:
            try fill(Workload.bulkRows)
            let before = try sumX()
            let statement = try prepare(RawContender.updateSQL)
            let start = ContinuousClock.now
            try exec("BEGIN IMMEDIATE")
            try updateEachRow(with: statement)
            try exec("COMMIT")
            let elapsed = seconds(since: start)
            sqlite3_finalize(statement)
            try check(try sumX() == before + Double(Workload.updates), "raw update_many sum")
            return Measurement(seconds: elapsed)
        case .observeLatency, .observeLatencyImmediate:
            let statement = try prepare(RawContender.insertSQL)
            var latencies: [Double] = []
            afterCommit = [{ beforeCommit in latencies.append(wallClock() - beforeCommit) }]
            for index in 0..<Workload.latencyCommits { try commitOne(.make(index), statement: statement) }
            sqlite3_finalize(statement)
            try check(latencies.count == Workload.latencyCommits, "raw latency events")
            return Measurement(p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99))
        case .observeFanout, .memoryListeners:
            var received = 0
            afterCommit = (0..<Workload.fanoutListeners).map { _ in { _ in received += 1 } }
            let statement = try prepare(RawContender.insertSQL)
            let start = ContinuousClock.now
            for index in 0..<Workload.fanoutCommits { try commitOne(.make(index), statement: statement) }
            let elapsed = seconds(since: start)
            sqlite3_finalize(statement)
            try check(received == Workload.fanoutListeners * Workload.fanoutCommits, "raw fanout events")
            if workload == .memoryListeners { return Measurement(peakBytes: peakResidentBytes()) }
            return Measurement(seconds: elapsed / Double(Workload.fanoutCommits))
        case .observedQueryIrrelevant10k, .observedQueryIrrelevant100k, .observedQueryIrrelevant1M:
            return try observedQueryIrrelevantFloor(workload)
        case .observedQueryRelevant:
            return Measurement(unsupported: "raw SQLite has no observation")
        case .bigTable10k, .bigTable100k, .bigTable1M:
            try fill(workload.tableSize)
            // A listener that needs the changed rows: the update hook gives the rowid; read that row.
            let changed = RowBox()
            sqlite3_update_hook(db, { context, _, _, _, rowid in
                Unmanaged<RowBox>.fromOpaque(context!).takeUnretainedValue().rows.append(rowid)
            }, Unmanaged.passUnretained(changed).toOpaque())
            let update = try prepare("UPDATE nodes SET x = x + 1 WHERE id = ?")
            let read = try prepare("SELECT x FROM nodes WHERE id = ?")
            var seen = 0.0
            let start = ContinuousClock.now
            for commit in 0..<Workload.bigTableCommits {
                try exec("BEGIN IMMEDIATE")
                sqlite3_bind_int64(update, 1, Int64(commit * 37 % workload.tableSize + 1))
                sqlite3_step(update)
                sqlite3_reset(update)
                try exec("COMMIT")
                for rowid in changed.rows {
                    sqlite3_bind_int64(read, 1, rowid)
                    if sqlite3_step(read) == SQLITE_ROW { seen += sqlite3_column_double(read, 0) }
                    sqlite3_reset(read)
                }
                changed.rows.removeAll()
            }
            let elapsed = seconds(since: start)
            sqlite3_update_hook(db, nil, nil)
            withExtendedLifetime(changed) {}
            sqlite3_finalize(update)
            sqlite3_finalize(read)
            try check(seen > 0, "raw big table saw changes")
            return Measurement(seconds: elapsed / Double(Workload.bigTableCommits))
        case .loggedCommitFloor:
            let statement = try prepare(RawContender.insertSQL)
            let log = try prepareCommitLog()
            let payload = [UInt8](repeating: 7, count: 64)
            var latencies: [Double] = []
            for index in 0..<Workload.latencyCommits {
                try exec("BEGIN IMMEDIATE")
                try insert(.make(index), with: statement)
                let stamp = wallClock()
                try insertLogRow(payload, with: log)
                try exec("COMMIT")
                latencies.append(wallClock() - stamp)
            }
            sqlite3_finalize(statement)
            sqlite3_finalize(log)
            try check(try count() == Workload.latencyCommits, "raw logged commits")
            return Measurement(p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99))
        case .smallTransactionsLoggedFloor:
            let nodes = (0..<Workload.smallTransactionCount).map(BenchNode.make)
            let statement = try prepare(RawContender.insertSQL)
            let log = try prepareCommitLog()
            let payload = [UInt8](repeating: 7, count: 64)
            let start = ContinuousClock.now
            for node in nodes {
                try exec("BEGIN IMMEDIATE")
                try insert(node, with: statement)
                try insertLogRow(payload, with: log)
                try exec("COMMIT")
            }
            let elapsed = seconds(since: start)
            sqlite3_finalize(statement)
            sqlite3_finalize(log)
            try check(try count() == Workload.smallTransactionCount, "raw logged small_tx count")
            return Measurement(seconds: elapsed)
        case .updateManyFullCapture, .updateManyRowCapture:
            try fill(Workload.bulkRows)
            let before = try sumX()
            let statement = try prepare(RawContender.updateSQL)
            let capture = CaptureBuffer(onlyChangedNewValues: workload == .updateManyRowCapture)
            let elapsed = try timedCapturedTransaction(capture) { try updateEachRow(with: statement) }
            sqlite3_finalize(statement)
            try check(capture.changes == Workload.updates, "raw capture saw every update")
            try check(try sumX() == before + Double(Workload.updates), "raw full capture sum")
            return Measurement(seconds: elapsed)
        case .updateManyHookFloor:
            try fill(Workload.bulkRows)
            let before = try sumX()
            let statement = try prepare(RawContender.updateSQL)
            let calls = HookCalls()
            let start = ContinuousClock.now
            sqlite3_preupdate_hook(db, HookCalls.hook, Unmanaged.passUnretained(calls).toOpaque())
            try exec("BEGIN IMMEDIATE")
            try updateEachRow(with: statement)
            sqlite3_preupdate_hook(db, nil, nil)
            try exec("COMMIT")
            let elapsed = seconds(since: start)
            sqlite3_finalize(statement)
            try check(calls.count == Workload.updates, "raw hook saw every update")
            try check(try sumX() == before + Double(Workload.updates), "raw hook floor sum")
            return Measurement(seconds: elapsed)
        case .macroRecordInsert, .macroRecordFetch:
            return Measurement(unsupported: "a store case: the @Record macro against NodeVO's hand-written coding")
        case .crossProcess:
            return Measurement(unsupported: "the C API has no cross-process notification")
        case .observeTracking:
            return Measurement(unsupported: "the C API has no observed read")
        case .asyncRead, .asyncReadSync:
            return try asyncRead(workload)
        case .observeFanoutFiltered, .observeFanoutFilteredSingle:
            return Measurement(unsupported: "a store case: the cost of the store's listener index")
        case .bigTransaction, .bigTransactionLogOff:
            return Measurement(unsupported: "a store case: the change log of a huge transaction against no log")
        case .handoffFloor, .handoffOpenLoop:
            // The time from a call to DispatchQueue.global().async to its block, while the caller goes on
            // working for as long as one store commit takes (~40 µs), as a writer does. The closed loop waits
            // for each block before the next hop; the open loop does not, as observe_latency's writer does not.
            let latencies = LatencyBox()
            let serial = DispatchQueue(label: "handoff")  // in order, as one listener's events are
            for index in 0..<Workload.latencyCommits {
                let start = wallClock()
                if workload == .handoffOpenLoop {
                    serial.async { latencies.add(wallClock() - start) }
                } else {
                    DispatchQueue.global().async { latencies.add(wallClock() - start) }
                }
                let busyUntil = wallClock() + 40e-6
                while wallClock() < busyUntil {}
                if workload == .handoffFloor { _ = latencies.wait(for: index + 1) }
            }
            try check(latencies.wait(for: Workload.latencyCommits), "raw handoff blocks")
            return Measurement(p50: percentile(latencies.all, 0.5), p99: percentile(latencies.all, 0.99))
        }
    }
}

extension Workload {
    /// observed_query_*: the live query's `x > k` bound (rows have x = index).
    var observedQueryBound: Double { Double(tableSize) * 0.9 }

    /// observed_query_irrelevant's `commit`th changed row: one outside the live query's result.
    func irrelevantRowID(_ commit: Int) -> Int64 { Int64(commit * 37 % (Int(observedQueryBound) - 10) + 1) }

    var tableSize: Int {
        switch self {
        case .bigTable10k, .observedQueryIrrelevant10k, .observedQueryRelevant: 10_000
        case .bigTable100k, .observedQueryIrrelevant100k: 100_000
        case .bigTable1M, .observedQueryIrrelevant1M: 1_000_000
        default: 0
        }
    }
}

/// The simplest complete capture of each change's old and new row: every column's old and new value copied
/// into one buffer (a type byte, then 8 bytes or a 4-byte length and the bytes), as update_many_full_capture's
/// preupdate hook writes it.
final class CaptureBuffer {
    var bytes: [UInt8] = []
    var changes = 0
    /// Whether a new value equal to the old one is written as one tag byte (what the store logs) instead of again.
    let onlyChangedNewValues: Bool

    init(onlyChangedNewValues: Bool = false) {
        self.onlyChangedNewValues = onlyChangedNewValues
    }

    /// The preupdate hook: one pass over the columns, each old and new value fetched once, text read in place
    /// (`sqlite3_value_blob`: `sqlite3_value_text` may copy it to add a NUL), into a buffer taken out of the
    /// object for the call (no exclusivity check per append). As cheap as the store's own capture, or cheaper.
    static let hook: @convention(c) (
        UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, sqlite3_int64,
        sqlite3_int64
    ) -> Void = { context, db, operation, _, _, _, _ in
        guard let context, let db else { return }
        let capture = Unmanaged<CaptureBuffer>.fromOpaque(context).takeUnretainedValue()
        capture.changes += 1
        var bytes: [UInt8] = []
        swap(&bytes, &capture.bytes)
        defer { swap(&bytes, &capture.bytes) }
        let count = sqlite3_preupdate_count(db)
        for index in 0..<count {
            var old: OpaquePointer?
            var new: OpaquePointer?
            if operation != SQLITE_INSERT { sqlite3_preupdate_old(db, index, &old) }  // an INSERT has no old row
            if operation != SQLITE_DELETE { sqlite3_preupdate_new(db, index, &new) }  // a DELETE no new one
            if operation != SQLITE_INSERT { append(old, to: &bytes) }
            if operation == SQLITE_DELETE { continue }
            if capture.onlyChangedNewValues, operation == SQLITE_UPDATE, same(old, new) {
                bytes.append(0xFF)  // unchanged
            } else {
                append(new, to: &bytes)
            }
        }
    }

    /// Same storage class and the same bits or bytes.
    private static func same(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        let type = sqlite3_value_type(a)
        guard type == sqlite3_value_type(b) else { return false }
        switch type {
        case SQLITE_INTEGER: return sqlite3_value_int64(a) == sqlite3_value_int64(b)
        case SQLITE_FLOAT: return sqlite3_value_double(a).bitPattern == sqlite3_value_double(b).bitPattern
        case SQLITE_TEXT, SQLITE_BLOB:
            let count = sqlite3_value_bytes(a)
            guard count == sqlite3_value_bytes(b) else { return false }
            guard count > 0 else { return true }
            return memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b), Int(count)) == 0
        default: return true
        }
    }

    /// A type byte, then 8 bytes or a 4-byte length and the bytes.
    private static func append(_ value: OpaquePointer?, to bytes: inout [UInt8]) {
        let type = value.map(sqlite3_value_type) ?? SQLITE_NULL
        bytes.append(UInt8(type))
        switch type {
        case SQLITE_INTEGER: withUnsafeBytes(of: sqlite3_value_int64(value).littleEndian) { bytes.append(contentsOf: $0) }
        case SQLITE_FLOAT: withUnsafeBytes(of: sqlite3_value_double(value).bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        case SQLITE_TEXT, SQLITE_BLOB:
            let pointer = sqlite3_value_blob(value)  // TEXT too: in place, the database is UTF-8
            let count = Int(sqlite3_value_bytes(value))
            withUnsafeBytes(of: UInt32(count).littleEndian) { bytes.append(contentsOf: $0) }
            if let pointer, count > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count)) }
        default: break
        }
    }
}

/// How many times update_many_hook_floor's preupdate hook was called.
final class HookCalls {
    var count = 0

    static let hook: @convention(c) (
        UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, sqlite3_int64,
        sqlite3_int64
    ) -> Void = { context, _, _, _, _, _, _ in
        guard let context else { return }
        Unmanaged<HookCalls>.fromOpaque(context).takeUnretainedValue().count += 1
    }
}

/// The rowids an update hook reports (a class, so that the hook's context pointer stays valid).
final class RowBox {
    var rows: [Int64] = []
}

/// A small deterministic random generator, the same sequence in every process.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
