import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ObservableStore
import ObservableStoreHummingbird
import ServiceLifecycle
import Testing

/// The service's lifecycle and the metrics of its streams.
@Suite(.timeLimit(.minutes(10)))
struct StoreServiceTests {
    @Test func opensTheStore() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("svc-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let service = try StoreService(path: path)
        #expect(try service.store.lastSequence() == 0)
        service.store.close()
    }

    @Test func gracefulShutdownEndsOpenStreamsThenClosesTheStore() async throws {
        let (client, service, stream) = try await StreamHarness.run { harness in
            let client = try harness.connect(query: "?since=0")
            let sequence = try harness.insertNode("a")
            #expect(try await client.next().id == sequence)
            return (client, harness.service, harness.stream)
        }
        // `app.test` returns once the service group has shut down: the server first, then the service.
        #expect(await client.waitForEnd(timeout: .seconds(10)))
        #expect(stream.isFinished)
        #expect(stream.clientCount == 0)
        #expect(throws: (any Error).self) { try service.store.lastSequence() }
    }

    @Test func theServiceRunReturnsAfterEndingStreamsAndClosingTheStore() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("svc-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let service = try StoreService(path: path)
        let stream = try service.commitStream()
        let run = Task { try await service.run() }
        run.cancel()  // outside a service group, cancellation stands for graceful shutdown
        try await run.value
        #expect(stream.isFinished)
        #expect(throws: (any Error).self) { try service.store.lastSequence() }
    }

    @Test func metricsCountCommitsDeliveriesClientsAndLatency() async throws {
        try await StreamHarness.run { harness in
            let client = try harness.connect(query: "?since=0")
            try await harness.waitForClients(1)
            try await Task.sleep(for: .milliseconds(50))  // past the replay: the next commits are live
            for index in 1...3 { try harness.insertNode("n\(index)") }
            #expect(try await client.next(3).map(\.id) == [1, 2, 3])
            let labels = "{stream=\"events\"}"
            #expect(harness.metric("observable_store_sse_commits_total" + labels) == 3)
            #expect(harness.metric("observable_store_sse_events_delivered_total" + labels) == 3)
            #expect(harness.metric("observable_store_sse_clients" + labels) == 1)
            #expect(harness.metric("observable_store_sse_backlog" + labels) == 0)
            #expect(harness.metric("observable_store_sse_delivery_latency_seconds_count" + labels) == 3)
            #expect(harness.metric("observable_store_sse_resyncs_total{stream=\"events\",reason=\"overflow\"}") == 0)
        }
    }

    @Test func theMetricsRouteServesPrometheusText() async throws {
        try await StreamHarness.run { harness in
            try harness.insertNode("a")
            try await harness.client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4")
                let text = String(buffer: response.body)
                #expect(text.contains("# TYPE observable_store_sse_commits_total counter"))
                #expect(text.contains("observable_store_sse_clients{stream=\"events\"} 0"))
            }
        }
    }
}

/// A client that stops reading holds its handler in a write that only task cancellation ends: with the group's
/// `maximumGracefulShutdownDuration` set, shutdown escalates to cancellation and still ends, with the store closed.
@Suite(.timeLimit(.minutes(10)))
struct StalledShutdownTests {
    @Test func aStalledClientHoldsShutdownOnlyUntilTheGroupsLimit() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stall-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
        let service = StoreService(store: store)
        let stream = try service.commitStream(CommitStreamOptions(heartbeatInterval: .seconds(60), clientBufferSize: 4))
        let router = Router()
        router.addCommitStream("events", stream)
        let port = PortBox()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), services: [service],
            onServerRunning: { channel in port.set(channel.localAddress?.port ?? 0) })
        var configuration = ServiceGroupConfiguration(services: [app], logger: Logger(label: "stalled-shutdown"))
        configuration.maximumGracefulShutdownDuration = .seconds(1)
        let group = ServiceGroup(configuration: configuration)
        let running = Task { try? await group.run() }
        let stalled = try SSEClient(port: try await port.value(), path: "/events?since=0", reading: false, receiveBuffer: 4096)
        let deadline = ContinuousClock.now + .seconds(10)
        while stream.clientCount < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        let big = String(repeating: "x", count: 80_000)
        for index in 1...150 {
            try await store.write { tx in _ = try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, 1, 2)", ["\(index) \(big)"]) }
        }
        try await Task.sleep(for: .milliseconds(300))  // the stalled client's handler is now stuck in a write
        let start = ContinuousClock.now
        await group.triggerGracefulShutdown()
        await running.value
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(stream.clientCount == 0)
        #expect(throws: (any Error).self) { try service.store.lastSequence() }
        withExtendedLifetime(stalled) {}
    }
}

/// The port the server listens on, once it does.
private final class PortBox: @unchecked Sendable {  // @unchecked: `port` is guarded by `lock`
    private let lock = NSLock()
    private var port: Int?

    func set(_ port: Int) { lock.withLock { self.port = port } }

    func value(timeout: Duration = .seconds(10)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let port = lock.withLock({ port }) { return port }
            guard ContinuousClock.now < deadline else { throw SSEClient.Failure(description: "the server did not start") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
