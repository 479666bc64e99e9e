import BenchSupport
import Foundation
import ObservableStorePostgres
import PostgresNIO

/// Commit → listener across processes: a child process commits single-row inserts through raw postgres-nio
/// (autocommit, `y` = the wall clock just before the statement is sent); this process hears them through
/// PostgresStore's listener, and through a raw postgres-nio LISTEN on the store's channel (the floor: the
/// server's NOTIFY alone, no read of the commit).
enum CommitLatency {
    /// The child's part: `count` inserts, `pause` apart.
    static func writer(url: String, count: Int, pause: Duration) async throws {
        let server = try BenchServer(url: url)
        let connection = try await server.connect(to: server.adminDatabase)
        for index in 0..<count {
            let name = "c\(index)"
            let x = Double(index)
            let sent = wallClock()
            try await connection.query("INSERT INTO nodes (name, x, y) VALUES (\(name), \(x), \(sent))", logger: BenchServer.logger)
            try await Task.sleep(for: pause)
        }
        try await connection.close()
    }

    /// The latencies in seconds: the store's listener's and the raw NOTIFY's.
    static func run(_ server: BenchServer, database: String, commits: Int) throws -> (store: [Double], notify: [Double]) {
        let store = try StorePostgresCases.open(server, database)
        defer { store.close() }
        let latencies = LatencyBox()
        let token = store.listen("latency", filter: .table("nodes")) { event in
            guard case .commit(let commit) = event else { return }
            let now = wallClock()
            for change in commit.changes { if let sent = change.new?.value("y", as: Double.self) { latencies.add(now - sent) } }
        }
        let arrivals = LatencyBox()
        let notifyListener = Task {
            let connection = try await server.connect(to: database, id: 99)
            try await connection.listen(on: "observable_store") { notifications in
                for try await _ in notifications {
                    arrivals.add(wallClock())
                    if arrivals.all.count == commits { break }
                }
            }
            try await connection.close()
        }
        Thread.sleep(forTimeInterval: 0.5)  // LISTEN sent and the store's feed connected before the first commit

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["writer", server.url(of: database), String(commits), "2"]
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchFailure("the writer process failed") }
        guard latencies.wait(for: commits, timeout: 60) else {
            throw BenchFailure("the store's listener got \(latencies.all.count) of \(commits) commits")
        }
        guard arrivals.wait(for: commits, timeout: 60) else {
            throw BenchFailure("the raw LISTEN got \(arrivals.all.count) of \(commits) notifications")
        }
        notifyListener.cancel()
        withExtendedLifetime(token) {}
        // The i-th notification is the i-th commit (one writer, one commit at a time): pair it with that row's y.
        let sent = try store.read { tx in
            try tx.fetchRows("SELECT y FROM nodes ORDER BY id").compactMap { Double.fromDatabaseValue($0[0]) }
        }
        guard sent.count == commits else { throw BenchFailure("\(sent.count) rows, \(commits) commits") }
        return (latencies.all, zip(arrivals.all, sent).map { $0 - $1 })
    }
}
