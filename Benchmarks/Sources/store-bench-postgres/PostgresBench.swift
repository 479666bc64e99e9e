import BenchSupport
import Foundation
import ObservableStorePostgres
import PostgresNIO

/// Runs the cases, each repetition on fresh databases, and prints a Markdown table of medians.
struct PostgresBench {
    static let cases = [
        "commits_1", "commits_4", "commits_8", "commits_16", "awaited_8", "awaited_16", "latency", "latency_16", "fetch_all", "fetch_by_id",
        "observed_query",
    ]
    static let totalCommits = 2_000
    static let latencyCommits = 1_000
    static let rows = 50_000
    static let lookups = 5_000

    let server: BenchServer
    let repetitions: Int
    let only: [String]
    /// The engine's migration the store is opened at (nil: all of them).
    let scheme: Int?

    init(arguments: [String]) throws {
        var url = ProcessInfo.processInfo.environment["OBSERVABLE_STORE_POSTGRES_URL"]
        var repetitions = 5
        var only = Self.cases
        var scheme: Int?
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--url": url = value
            case "--repeat": repetitions = Int(value) ?? 0
            case "--only": only = value.split(separator: ",").map(String.init)
            case "--scheme":
                guard let version = Int(value), version > 0 else { throw BenchFailure("--scheme needs a migration version") }
                scheme = version
            default: throw BenchFailure("unknown argument \(arguments[index]); see the comment at the top of main.swift")
            }
            index += 2
        }
        guard let url else { throw BenchFailure("no server: pass --url or set OBSERVABLE_STORE_POSTGRES_URL") }
        guard repetitions > 0 else { throw BenchFailure("--repeat needs a positive number") }
        if let unknown = only.first(where: { !Self.cases.contains($0) }) {
            throw BenchFailure("unknown case \(unknown); cases: \(Self.cases.joined(separator: ", "))")
        }
        self.server = try BenchServer(url: url)
        self.repetitions = repetitions
        self.only = only
        self.scheme = scheme
    }

    func run() throws {
        print("| case | store | raw postgres-nio | store ÷ raw, median (runs) |")
        print("|---|---|---|---|")
        for name in only {
            var store: [Double] = []
            var raw: [Double] = []
            var ratios: [Double] = []
            for _ in 0..<repetitions {
                let (storeValue, rawValue) = try measure(name)
                store.append(storeValue)
                raw.append(rawValue)
                ratios.append(storeValue / rawValue)
            }
            let runs = ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")
            print("| \(name) | \(format(name, median(store))) | \(format(name, median(raw))) | \(String(format: "%.2f×", median(ratios))) (\(runs)) |")
        }
    }

    /// One repetition of case `name`: (store, raw). Commits: commits/s; latency: p50 and p99 in ms, raw = NOTIFY;
    /// fetches: seconds.
    private func measure(_ name: String) throws -> (Double, Double) {
        switch name {
        case "commits_1", "commits_4", "commits_8", "commits_16", "awaited_8", "awaited_16":
            let awaited = name.hasPrefix("awaited_")
            let writers = Int(name.split(separator: "_").last ?? "") ?? 1
            let perWriter = Self.totalCommits / writers
            let storeSeconds = try runBlocking {
                try await server.withDatabase { database in
                    awaited
                        ? try await StorePostgresCases.awaitedCommits(server, database: database, writers: writers, commits: perWriter)
                        : try StorePostgresCases.commits(server, database: database, writers: writers, commits: perWriter, scheme: scheme)
                }
            }
            let rawSeconds = try runBlocking {
                try await server.withDatabase { database in
                    try await RawPostgres.commits(server, database: database, writers: writers, commits: perWriter)
                }
            }
            let total = Double(perWriter * writers)
            return (total / storeSeconds, total / rawSeconds)
        case "latency", "latency_16":
            let writers = name == "latency" ? 1 : 16
            let (store, notify) = try runBlocking {
                try await server.withDatabase { database in
                    try CommitLatency.run(server, database: database, commits: Self.latencyCommits, writers: writers)
                }
            }
            let line = String(
                format: "\(name) run: store p50 %.2f ms p99 %.2f ms; NOTIFY p50 %.2f ms p99 %.2f ms",
                percentile(store, 0.5) * 1e3, percentile(store, 0.99) * 1e3, percentile(notify, 0.5) * 1e3,
                percentile(notify, 0.99) * 1e3)
            FileHandle.standardError.write(Data((line + "\n").utf8))
            return (percentile(store, 0.5) * 1e3, percentile(notify, 0.5) * 1e3)
        case "fetch_all", "fetch_by_id":
            return try runBlocking {
                try await server.withDatabase { database in
                    let store = try StorePostgresCases.open(server, database)
                    defer { store.close() }
                    _ = try await store.write { tx in try tx.execute(RawPostgres.fillSQL(rows: Self.rows)) }
                    let connection = try await server.connect(to: database)
                    let result: (Double, Double)
                    if name == "fetch_all" {
                        let expected = Double(Self.rows) * Double(Self.rows - 1) / 2
                        let raw = try await RawPostgres.fetchAll(connection)
                        let mine = try StorePostgresCases.fetchAll(store)
                        guard raw.count == Self.rows, mine.count == Self.rows, raw.sumX == expected, mine.sumX == expected
                        else { throw BenchFailure("fetch_all: wrong rows") }
                        result = (mine.seconds, raw.seconds)
                    } else {
                        let ids = Self.lookupIDs()
                        let checksum = ids.reduce(0) { $0 + Double($1 - 1) }
                        let raw = try await RawPostgres.fetchByID(connection, ids: ids)
                        let mine = try StorePostgresCases.fetchByID(store, ids: ids)
                        guard raw.sumX == checksum, mine.sumX == checksum else { throw BenchFailure("fetch_by_id: wrong sums") }
                        result = (mine.seconds, raw.seconds)
                    }
                    try await connection.close()
                    return result
                }
            }
        case "observed_query":
            let times = try runBlocking {
                try await server.withDatabase { database in try ObservedQueryCase.run(server, database: database) }
            }
            let line = String(
                format: "observed_query run: per commit %.3f ms judged in memory, %.3f ms with no observer, %.3f ms read again (filter(sql:))",
                times.inMemory * 1e3, times.floor * 1e3, times.readAgain * 1e3)
            FileHandle.standardError.write(Data((line + "\n").utf8))
            return (times.inMemory, times.readAgain)
        default:
            throw BenchFailure("unknown case \(name)")
        }
    }

    private func format(_ name: String, _ value: Double) -> String {
        if name.hasPrefix("commits") || name.hasPrefix("awaited") { return String(format: "%.0f commits/s", value) }
        if name.hasPrefix("latency") { return String(format: "p50 %.2f ms", value) }
        if name == "observed_query" { return String(format: "%.3f ms", value * 1e3) }
        return String(format: "%.1f ms", value * 1e3)
    }

    /// `lookups` ids in 1...rows from a fixed seed (a linear congruential generator).
    static func lookupIDs() -> [Int64] {
        var state: UInt64 = 42
        return (0..<lookups).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64((state >> 33) % UInt64(rows)) + 1
        }
    }
}

/// Runs `body` on the concurrency pool and waits for it on this (non-pool) thread.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// The result a `runBlocking` task hands to the waiting thread (written before, read after the semaphore).
final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
