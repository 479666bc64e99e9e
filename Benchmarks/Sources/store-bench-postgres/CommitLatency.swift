import BenchSupport
import Foundation
import ObservableStorePostgres
import PostgresNIO

/// Commit → listener across processes: a child process commits single-row inserts through raw postgres-nio on
/// one or more connections (autocommit, `y` = the wall clock just before the statement is sent: foreign writers,
/// which never wait for their number); this process hears them through PostgresStore's listener, and through a raw
/// postgres-nio LISTEN on the store's channel (the floor: the server's NOTIFY alone, one per numbered batch, whose
/// payload is the batch's last sequence, no read of the commit).
enum CommitLatency {
    /// The child's part: `count` inserts in all over `connections` connections at once, each `pause` apart.
    static func writer(url: String, count: Int, pause: Duration, connections: Int) async throws {
        let server = try BenchServer(url: url)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<connections {
                group.addTask {
                    let connection = try await server.connect(to: server.adminDatabase, id: writer + 1)
                    for index in stride(from: writer, to: count, by: connections) {
                        let name = "c\(index)"
                        let x = Double(index)
                        let sent = wallClock()
                        try await connection.query(
                            "INSERT INTO nodes (name, x, y) VALUES (\(name), \(x), \(sent))", logger: BenchServer.logger)
                        try await Task.sleep(for: pause)
                    }
                    try await connection.close()
                }
            }
            try await group.waitForAll()
        }
    }

    /// The latencies in seconds: the store's listener's and the raw NOTIFY's.
    static func run(_ server: BenchServer, database: String, commits: Int, writers: Int) throws -> (store: [Double], notify: [Double]) {
        let store = try StorePostgresCases.open(server, database)
        defer { store.close() }
        let latencies = LatencyBox()
        let token = store.listen("latency", filter: .table("nodes")) { event in
            guard case .commit(let commit) = event else { return }
            let now = wallClock()
            for change in commit.changes { if let sent = change.new?.value("y", as: Double.self) { latencies.add(now - sent) } }
        }
        let arrivals = ArrivalBox()
        let notifyListener = Task {
            let connection = try await server.connect(to: database, id: 99)
            try await connection.listen(on: "observable_store") { notifications in
                for try await notification in notifications {
                    guard let head = Int64(notification.payload) else { continue }
                    if arrivals.add(head: head, at: wallClock()) >= commits { break }
                }
            }
            try await connection.close()
        }
        Thread.sleep(forTimeInterval: 0.5)  // LISTEN sent and the store's feed connected before the first commit

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["writer", server.url(of: database), String(commits), "2", String(writers)]
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchFailure("the writer process failed") }
        guard latencies.wait(for: commits, timeout: 60) else {
            throw BenchFailure("the store's listener got \(latencies.all.count) of \(commits) commits")
        }
        guard arrivals.wait(forHead: Int64(commits), timeout: 60) else {
            throw BenchFailure("the raw LISTEN heard the head reach \(arrivals.head) of \(commits)")
        }
        notifyListener.cancel()
        withExtendedLifetime(token) {}
        // Each notification announces the commits after the previous head through its own: pair each commit's
        // sequence with its row's y (the moment it was sent).
        let sent = try store.read { tx in
            try tx.fetchRows(
                "SELECT c.seq, (ch.new_row->>'y')::float8 FROM _store_commits c JOIN _store_changes ch USING (txid) ORDER BY c.seq"
            ).compactMap { row -> (Int64, Double)? in
                guard let seq = Int64.fromDatabaseValue(row[0]), let y = Double.fromDatabaseValue(row[1]) else { return nil }
                return (seq, y)
            }
        }
        guard sent.count == commits else { throw BenchFailure("\(sent.count) rows, \(commits) commits") }
        return (latencies.all, sent.compactMap { seq, y in arrivals.arrival(of: seq).map { $0 - y } })
    }
}

/// When each head announced by NOTIFY arrived; the arrival of a commit is that of the first head at or past it.
final class ArrivalBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var heads: [(head: Int64, at: Double)] = []

    /// Records that `head` was announced at `at`; returns the highest head heard.
    func add(head: Int64, at: Double) -> Int {
        condition.withLock {
            heads.append((head, at))
            condition.broadcast()
            return Int(heads.map(\.head).max() ?? 0)
        }
    }

    /// The highest head heard.
    var head: Int64 { condition.withLock { heads.map(\.head).max() ?? 0 } }

    /// Waits until a head at or past `target` was heard.
    func wait(forHead target: Int64, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while (heads.map(\.head).max() ?? 0) < target {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// When commit `sequence` was announced.
    func arrival(of sequence: Int64) -> Double? {
        condition.withLock { heads.first { $0.head >= sequence }?.at }
    }
}
