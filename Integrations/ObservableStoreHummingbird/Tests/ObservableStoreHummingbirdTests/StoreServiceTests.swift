import Foundation
import Hummingbird
import HummingbirdTesting
import ObservableStore
import ObservableStoreHummingbird
import Testing

/// The service's lifecycle and the metrics of its streams.
@Suite(.timeLimit(.minutes(3)))
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
