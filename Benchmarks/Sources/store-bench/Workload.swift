import BenchSupport
import Foundation

/// The benchmark cases, each run in a fresh process and directory.
enum Workload: String, CaseIterable {
    case bulkInsert = "bulk_insert"
    /// bulk_insert with the store's change log off and no listener (raw and GRDB run bulk_insert).
    case bulkInsertLogOff = "bulk_insert_log_off"
    /// bulk_insert with the store's log in C: a preupdate hook copies each new row's values into one buffer,
    /// written as one log row before COMMIT (run by raw only). The floor of a store whose events carry the
    /// inserted rows.
    case bulkInsertRowCapture = "bulk_insert_row_capture"
    case smallTransactions = "small_tx"
    /// small_tx with the store's change log off: what the log costs per commit (raw and GRDB run small_tx).
    case smallTransactionsLogOff = "small_tx_log_off"
    case fetchAll = "fetch_all"
    case fetchByID = "fetch_by_id"
    case updateMany = "update_many"
    /// update_many with the store's change log off: what logging each update's row costs.
    case updateManyLogOff = "update_many_log_off"
    case observeLatency = "observe_latency"
    /// observe_latency with an immediate listener (called on the writer's thread after COMMIT); raw's
    /// listener is always called that way; GRDB has no such delivery for ValueObservation.
    case observeLatencyImmediate = "observe_latency_immediate"
    /// The floor of asynchronous delivery on this machine: one `DispatchQueue.global().async` hop, at the
    /// pace of observe_latency's commits, with no database (run by raw only).
    case handoffFloor = "handoff_floor"
    /// handoff_floor without waiting for each hop: the caller goes on at the same pace while the hops run
    /// in order on a serial queue, as a writer commits while a listener's events are delivered (raw only).
    case handoffOpenLoop = "handoff_open_loop"
    /// The floor of immediate delivery for a store that logs its commits: raw's observe_latency with one
    /// more row (a 64-byte blob) inserted into a second table in each transaction after the stamp, as the
    /// store inserts its log row (run by raw only).
    case loggedCommitFloor = "logged_commit_floor"
    /// small_tx with one more row per transaction (a 64-byte blob in a second table), as the store inserts its
    /// log row: the throughput floor of any store that logs each commit in its transaction (run by raw only).
    case smallTransactionsLoggedFloor = "small_tx_logged_floor"
    /// update_many with the simplest complete change capture in raw SQLite: a preupdate hook that copies every
    /// column's old and new value into one buffer, written as one log row before COMMIT (run by raw only). Not a
    /// floor: the store logs only the new values that changed, and came out faster than this in a full run.
    case updateManyFullCapture = "update_many_full_capture"
    /// update_many_full_capture logging what the store logs: every old value, and only the new values that differ
    /// from them (an unchanged one is one tag byte); run by raw only. The floor of a store whose events carry
    /// the changed rows: the same capture and the same log bytes in C, without the store's own work.
    case updateManyRowCapture = "update_many_row_capture"
    /// update_many with a preupdate hook that only counts its calls (run by raw only): what SQLite itself spends
    /// when any preupdate hook is installed (it reads each old row and builds each new one for the hook), the
    /// floor of a store that captures changes through that hook.
    case updateManyHookFloor = "update_many_hook_floor"
    case observeFanout = "observe_fanout"
    /// 10,000 listeners, each filtered to one key of `nodes`; each commit updates one row, matching one of
    /// them: commit → handler p50 and p99 of that one (run by the store only).
    case observeFanoutFiltered = "observe_fanout_filtered"
    /// observe_fanout_filtered with only the matching listener registered: the target is within 1.5× of this.
    case observeFanoutFilteredSingle = "observe_fanout_filtered_single"
    case bulkInsertObserved = "observe_overhead"
    case bigTable10k = "big_table_observe_10k"
    case bigTable100k = "big_table_observe_100k"
    case bigTable1M = "big_table_observe_1m"
    case crossProcess = "cross_process"
    case memoryFetchAll = "memory_fetch_all"
    case memoryListeners = "memory_1000_listeners"
    /// A live query `x > k ORDER BY name LIMIT 50` (index on `x`, k = 90% of the table) while each commit
    /// changes a row outside its result: seconds per commit until the observer has caught up. Raw:
    /// the same commits with no observer, the floor.
    case observedQueryIrrelevant10k = "observed_query_irrelevant_10k"
    case observedQueryIrrelevant100k = "observed_query_irrelevant_100k"
    case observedQueryIrrelevant1M = "observed_query_irrelevant_1m"
    /// The same live query on 10k rows, each commit changing a row inside its result: commit → the new value,
    /// p50 and p99 (raw has no observation).
    case observedQueryRelevant = "observed_query_relevant"
    /// An observed read joining two tables, then commits to a third (ObserveTrackingCase.swift).
    case observeTracking = "observe_tracking"
    /// 10,000 async fetches by key from tasks, 64 in flight (AsyncRead.swift); raw runs only async_read_sync.
    case asyncRead = "async_read"
    /// async_read's fetches made synchronously, one after the other: the ratio async_read / this is the cost of async.
    case asyncReadSync = "async_read_sync"
    /// bulk_insert of a `@Record` type with NodeVO's columns: the macro's generated coding against NodeVO's
    /// hand-written coding (run by the store only; its ratio is to the store's bulk_insert).
    case macroRecordInsert = "macro_record_insert"
    /// fetch_all of a `@Record` type with NodeVO's columns (store only; its ratio is to the store's fetch_all).
    case macroRecordFetch = "macro_record_fetch"
    /// One transaction of `bigTransactionRows` inserts through the library, logged in pieces and delivered to a
    /// listener: seconds until the listener has its last piece, and peak RSS (store only).
    case bigTransaction = "big_transaction"
    /// big_transaction with change tracking off (no capture, no log, no listener): its ratio is the cost of the log.
    case bigTransactionLogOff = "big_transaction_log_off"

    /// Whether the store runs this case with change tracking off.
    var storeLogOff: Bool {
        [.bulkInsertLogOff, .smallTransactionsLogOff, .updateManyLogOff, .bigTransactionLogOff].contains(self)
    }

    /// Sizes.
    static let bulkRows = 200_000
    /// big_transaction's rows: 2,000,000, or `BENCH_BIG_TRANSACTION_ROWS` (to compare peak memory at other sizes).
    static let bigTransactionRows = ProcessInfo.processInfo.environment["BENCH_BIG_TRANSACTION_ROWS"].flatMap(Int.init) ?? 2_000_000
    static let smallTransactionCount = 5_000
    static let lookups = 100_000
    static let updates = 50_000
    static let latencyCommits = 2_000
    static let fanoutListeners = 1_000
    static let fanoutCommits = 200
    static let filteredFanoutListeners = 10_000
    /// The row every commit of observe_fanout_filtered updates (the key of the matching listener).
    static let filteredFanoutKey: Int64 = 5_000
    static let bigTableCommits = 200
    /// observed_query_*: commits per run, and the live query's limit.
    static let observedQueryCommits = 200
    static let observedQueryLimit = 50

    /// fetch_by_id's keys: `lookups` ids of the filled table, drawn from a fixed seed, the same for every contender.
    static func lookupIDs() -> [Int64] {
        var generator = SplitMix(seed: 42)
        return (0..<lookups).map { _ in Int64(generator.next() % UInt64(bulkRows)) + 1 }
    }

    /// The sum of `x` over the rows of `ids` (the filled table has x = id - 1).
    static func lookupChecksum(_ ids: [Int64]) -> Double {
        ids.reduce(0) { $0 + Double($1 - 1) }
    }
}

/// What a worker reports for one case: its main figure, and the check that the work was right.
struct Measurement: Codable {
    /// Seconds for timed cases; seconds per commit for per-commit cases.
    var seconds: Double?
    /// p50 and p99 in seconds for latency cases.
    var p50: Double?
    var p99: Double?
    /// Peak resident memory in bytes, for memory cases.
    var peakBytes: Double?
    /// Why the case does not apply to this contender, if it does not.
    var unsupported: String?
}

/// One node of the benchmark, the same for every contender: all nine columns of `nodes`, so that every
/// contender writes and reads the same row (GRDB's record and the store's `NodeVO` have the nine too).
struct BenchNode {
    var id: Int64
    var name: String
    var x: Double
    var y: Double
    var color: String
    var width: Double
    var height: Double
    var createdAt: String
    var updatedAt: String

    static func make(_ index: Int) -> BenchNode {
        BenchNode(
            id: Int64(index + 1), name: "node \(index)", x: Double(index), y: Double(index % 100), color: "#4A90D9",
            width: 120, height: 60, createdAt: "2026-11-22T10:00:00.000Z", updatedAt: "2026-11-22T10:00:00.000Z")
    }
}

/// The same table for every contender: the store's `nodes` (Migrations/0001_create_nodes.sql).
let nodesTableSQL = """
    CREATE TABLE IF NOT EXISTS nodes (
      id          INTEGER PRIMARY KEY,
      name        TEXT    NOT NULL,
      x           REAL    NOT NULL,
      y           REAL    NOT NULL,
      color       TEXT    NOT NULL DEFAULT '#4A90D9',
      width       REAL    NOT NULL DEFAULT 120 CHECK (width >= 0),
      height      REAL    NOT NULL DEFAULT 60 CHECK (height >= 0),
      created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
      updated_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT;
    CREATE INDEX IF NOT EXISTS nodes_updated_at ON nodes(updated_at);
    """

/// Thrown when a case's result is wrong: a fast wrong answer fails the run.
struct WrongResult: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw WrongResult(message()) }
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Wall-clock seconds, for latencies measured across threads and processes.
func peakResidentBytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) * 1024
}

