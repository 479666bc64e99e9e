import Foundation
import Hummingbird
import HummingbirdTesting
import ObservableStore
import ObservableStoreHummingbird
import Prometheus

/// A store (a file in a temporary directory, or a PostgreSQL database of the test server), its service and commit
/// stream, served by a live application on a free loopback port, with metrics in a registry of the test's own.
struct StreamHarness<S: RecordStore>: Sendable {
    let directory: URL
    let store: S
    let service: StoreService
    let stream: CommitStream
    let registry: PrometheusCollectorRegistry
    let port: Int
    let client: any TestClientProtocol

    var path: String { directory.appendingPathComponent("store.sqlite").path }

    /// Runs `body` against a live application serving `store`, made in `directory`; afterwards (graceful shutdown
    /// done, which closes the store) the directory is removed.
    static func run<T: Sendable>(
        store open: (URL) throws -> S, options: CommitStreamOptions, _ body: @Sendable (StreamHarness) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sse-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = PrometheusCollectorRegistry()
        let store = try open(directory)
        let service = StoreService(store: store, metricsFactory: PrometheusMetricsFactory(registry: registry))
        let stream = try service.commitStream(options)
        let router = Router()
        router.addCommitStream("events", stream)
        router.addMetrics("metrics", registry: registry)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), services: [service])
        return try await app.test(.live) { client in
            try await body(
                StreamHarness(
                    directory: directory, store: store, service: service, stream: stream, registry: registry,
                    port: client.port ?? 0, client: client))
        }
    }

    /// Inserts a node in its own transaction; returns the commit's sequence (`?` placeholders on both engines).
    @discardableResult
    func insertNode(_ name: String = "n", origin: String? = nil) throws -> Int64 {
        try store.writeReturningCommit(origin: origin) { tx in
            try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)", [name, 1.5, 2.0])
        }.sequence ?? 0
    }

    /// A client of `/events` (with `query` and `headers`).
    func connect(query: String = "", headers: [String: String] = [:], reading: Bool = true, receiveBuffer: Int32? = nil) throws -> SSEClient {
        try SSEClient(port: port, path: "/events" + query, headers: headers, reading: reading, receiveBuffer: receiveBuffer)
    }

    /// Waits until the stream has `count` clients.
    func waitForClients(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while stream.clientCount != count {
            guard ContinuousClock.now < deadline else { throw SSEClient.Failure(description: "\(stream.clientCount) clients, not \(count)") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The value of the metric line that starts with `prefix` (name and labels), from the registry.
    func metric(_ prefix: String) -> Double? {
        registry.emitToString().split(separator: "\n").first { $0.hasPrefix(prefix + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}

/// The stream over a SQLite store.
extension StreamHarness where S == SQLiteStore {
    /// Runs `body` against a live application serving a new store file; see ``run(store:options:_:)``.
    static func run<T: Sendable>(
        options: CommitStreamOptions = CommitStreamOptions(heartbeatInterval: .seconds(60)),
        configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration(),
        _ body: @Sendable (StreamHarness) async throws -> T
    ) async throws -> T {
        try await run(
            store: { directory in try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path, configuration: configuration) },
            options: options, body)
    }
}
