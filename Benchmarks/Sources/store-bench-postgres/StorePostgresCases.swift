import BenchSupport
import Foundation
import ObservableStorePostgres
import PostgresNIO

/// The same workloads on PostgresStore (sync API, its pool, capture on `nodes`).
enum StorePostgresCases {
    /// Opens a store on `database` (migrating it: `nodes` with capture), up to migration `scheme` of the engine's set
    /// when given (`1`: the first scheme, stamped under the head row's lock at COMMIT).
    static func open(_ server: BenchServer, _ database: String, connections: Int = 8, scheme: Int? = nil) throws -> PostgresStore {
        var configuration = PostgresStoreConfiguration()
        configuration.maximumConnectionCount = connections
        if let scheme { configuration.migrationPolicy = .migrateUpTo(version: scheme, set: MigrationSet.storeSetName) }
        return try PostgresStore(url: server.url(of: database), configuration: configuration)
    }

    /// `writers` threads, each `commits` writes of one inserted node; returns the seconds for all of them.
    static func commits(_ server: BenchServer, database: String, writers: Int, commits: Int, scheme: Int?) throws -> Double {
        let store = try open(server, database, connections: writers, scheme: scheme)
        defer { store.close() }
        let failures = FailureBox()
        let done = DispatchGroup()
        let start = ContinuousClock.now
        for writer in 0..<writers {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                do {
                    for index in 0..<commits {
                        _ = try store.write { tx in try tx.insert(NodeVO(name: "w\(writer)-\(index)", x: Double(index), y: 0)) }
                    }
                } catch {
                    failures.record(error)
                }
            }
            thread.start()
        }
        guard done.wait(timeout: .now() + 600) == .success else { throw BenchFailure("store writers did not finish in 600 s") }
        let elapsed = seconds(since: start)
        if let error = failures.first { throw error }
        let count = try store.read { tx in try tx.fetchValue("SELECT count(*) FROM nodes") }
        guard count == .integer(Int64(writers * commits)) else { throw BenchFailure("store commits: \(String(describing: count)) rows") }
        return elapsed
    }

    /// `writers` tasks, each `commits` awaited writes of one inserted node (`try await tx.insert`: no thread waits
    /// for the server); returns the seconds for all of them.
    static func awaitedCommits(_ server: BenchServer, database: String, writers: Int, commits: Int) async throws -> Double {
        let store = try open(server, database, connections: writers)
        defer { store.close() }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<commits {
                        _ = try await store.write { tx in try await tx.insert(NodeVO(name: "w\(writer)-\(index)", x: Double(index), y: 0)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = seconds(since: start)
        let count = try await store.read { tx in try await tx.fetchValue("SELECT count(*) FROM nodes") }
        guard count == .integer(Int64(writers * commits)) else { throw BenchFailure("awaited commits: \(String(describing: count)) rows") }
        return elapsed
    }

    /// fetch_all through the repository; returns the seconds, the count and the sum of x.
    static func fetchAll(_ store: PostgresStore) throws -> (seconds: Double, count: Int, sumX: Double) {
        let start = ContinuousClock.now
        let nodes = try store.repository(NodeVO.self).fetchAll()
        let elapsed = seconds(since: start)
        return (elapsed, nodes.count, nodes.reduce(0) { $0 + $1.x })
    }

    /// fetch_by_id through the repository; returns the seconds and the sum of x.
    static func fetchByID(_ store: PostgresStore, ids: [Int64]) throws -> (seconds: Double, sumX: Double) {
        let repository = store.repository(NodeVO.self)
        let start = ContinuousClock.now
        var total = 0.0
        for id in ids { total += try repository.fetch(id)?.x ?? 0 }
        return (seconds(since: start), total)
    }
}

/// The first error any writer thread met.
final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func record(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}
