import BenchSupport
import Foundation
import ObservableStorePostgres

/// observed_query: an observed query on a table of 10,000 nodes (`x > 9000`, ordered by x, first 50) while a writer
/// commits updates of rows outside its result, then one inside it; the time per commit until the observer has caught
/// up with the last one. Three runs on one database: no observer (the commits alone), an observer whose filter is
/// judged in memory (`filter(_:_:_:)`), and one whose filter only the server evaluates (`filter(sql:)`: it reads the
/// query again after every commit to the table).
enum ObservedQueryCase {
    static let rows = 10_000
    static let commits = 300

    /// Seconds per commit: (judged in memory, no observer, read again).
    static func run(_ server: BenchServer, database: String) throws -> (inMemory: Double, floor: Double, readAgain: Double) {
        let store = try StorePostgresCases.open(server, database)
        defer { store.close() }
        try store.write { tx in
            try tx.execute(RawPostgres.fillSQL(rows: rows))
            try tx.execute("CREATE INDEX nodes_x ON nodes(x)")
        }
        let bound = Double(rows) * 0.9
        let floor = try measure(store, observing: nil, round: 0)
        let inMemory = try measure(
            store, observing: RecordQuery<NodeVO>().filter("x", .greaterThan, bound).order(by: "x").limit(50), round: 1)
        let readAgain = try measure(
            store, observing: RecordQuery<NodeVO>().filter(sql: "x > ?", arguments: [bound]).order(by: "x").limit(50), round: 2)
        return (inMemory, floor, readAgain)
    }

    /// `commits` updates of rows outside the result, then one of a row inside it; with an observer of `query`, until
    /// it has delivered the value of that last commit. Seconds per commit.
    private static func measure(_ store: PostgresStore, observing query: RecordQuery<NodeVO>?, round: Int) throws -> Double {
        let delivered = Delivered()
        var task: Task<Void, any Error>?
        if let query {
            let values = try store.values(of: query)
            task = Task { for try await element in values { delivered.note(element.sequence) } }
            guard delivered.wait(atLeast: 1) else { throw BenchFailure("observed_query: no first value") }
        }
        defer { task?.cancel() }
        let start = ContinuousClock.now
        for commit in 0..<commits {
            // Rows 1 … 8000 have x below the bound, and the updates keep it there.
            let id = Int64((commit * 37 + round * 11) % 8_000 + 1)
            try store.write { tx in try tx.execute("UPDATE nodes SET x = x + 0.001 WHERE id = ?", [id]) }
        }
        // Row 9010 (x = 9009) is among the first 50 above the bound.
        let last = try store.writeReturningCommit { tx in try tx.execute("UPDATE nodes SET y = y + 1 WHERE id = 9010") }
        if query != nil {
            guard let sequence = last.sequence, delivered.wait(atLeast: sequence) else {
                throw BenchFailure("observed_query: the observer did not catch up")
            }
        }
        return seconds(since: start) / Double(commits + 1)
    }
}

/// The newest sequence an observer delivered, and a wait for it.
private final class Delivered: @unchecked Sendable {
    private let condition = NSCondition()
    private var newest: Int64 = 0

    func note(_ sequence: Int64) {
        condition.withLock {
            newest = max(newest, sequence)
            condition.broadcast()
        }
    }

    /// Whether a value of `sequence` or later came within 60 s.
    func wait(atLeast sequence: Int64) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 60)
        return condition.withLock {
            while newest < sequence { if !condition.wait(until: deadline) { return false } }
            return true
        }
    }
}
