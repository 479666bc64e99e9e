import Foundation
import ObservableStore
import SSEWire
import Testing

/// node-board started for real on a temporary store, an SSE client over a socket, storectl writing from another
/// process.
@Suite(.timeLimit(.minutes(10)))
struct EventStreamProcessTests {
    @Test func storectlInsertArrivesWithItsSequence() throws {
        let server = try NodeBoardServer()
        let events = try SSEConnection(port: server.port)
        let head = try events.head(timeout: 10)
        try #require(head.status == 200)
        #expect(head.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        #expect(head.headers["cache-control"] == "no-store")
        #expect(head.headers["x-accel-buffering"] == "no")

        try EventStreamProcessTests.expectStorectlInsertArrives(on: server, events: events)
    }

    /// Inserts a node with storectl (another process) and expects `events` to deliver its commit: the store's last
    /// sequence as `id:`, origin "storectl", one insert into `nodes` with the node's columns.
    static func expectStorectlInsertArrives(on server: NodeBoardServer, events: SSEConnection) throws {
        try server.insertNode(named: "from-shell", x: 1.5, y: 2)
        let sequence = try server.lastSequence()
        let frame = try events.nextEvent(timeout: 10)
        #expect(frame.event == "commit")
        #expect(frame.sequence == sequence)
        let commit = try #require(try JSONSerialization.jsonObject(with: Data(frame.data.utf8)) as? [String: Any])
        #expect((commit["seq"] as? NSNumber)?.int64Value == sequence)
        #expect(commit["origin"] as? String == "storectl")
        let changes = try #require(commit["changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["table"] as? String == "nodes")
        #expect(changes.first?["op"] as? String == "insert")
        let columns = try #require(changes.first?["changes"] as? [String: Any])
        #expect(columns["name"] as? String == "from-shell")
        #expect((columns["x"] as? NSNumber)?.doubleValue == 1.5)
    }

    @Test func reconnectingWithLastEventIDGetsExactlyTheMissedCommits() throws {
        let server = try NodeBoardServer()
        let first = try server.events()
        try server.insertNode(named: "seen")
        let seen = try #require(try first.nextEvent(timeout: 10).sequence)
        first.close()

        try server.insertNode(named: "missed-1")
        try server.insertNode(named: "missed-2")
        // The header wins over ?since=.
        let resumed = try server.events(path: "/events?since=0", headers: ["Last-Event-ID": "\(seen)"])
        let replayed = try [resumed.nextEvent(timeout: 10), resumed.nextEvent(timeout: 10)]
        #expect(replayed.map(\.sequence) == [seen + 1, seen + 2])
        #expect(replayed.map(\.event) == ["commit", "commit"])
        #expect(replayed[0].data.contains(#""name":"missed-1""#))
        #expect(replayed[1].data.contains(#""name":"missed-2""#))
        let more = try resumed.frames(arrivingWithin: 1).filter(\.isEvent)
        #expect(more.isEmpty, "more than the two missed commits: \(more)")

        let bySince = try server.events(path: "/events?since=\(seen + 1)")
        let next = try bySince.nextEvent(timeout: 10)
        #expect(next.sequence == seen + 2)
    }

    @Test func aPrunedResumePointGetsResync() throws {
        let server = try NodeBoardServer()
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = RetentionPolicy(
            minimumKeptCommits: 1, minimumKeptAge: nil, hardCapCommits: nil, pruneInterval: 1_000_000)
        let store = try SQLiteStore(path: server.storePath, configuration: configuration)
        for index in 0..<5 {
            try store.write(origin: "test") { transaction in
                _ = try transaction.execute("INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)", ["pruned-\(index)", 1.0, 2.0])
            }
        }
        #expect(try store.pruneChangeLog() > 0)
        store.close()
        let last = try server.lastSequence()

        let events = try server.events(headers: ["Last-Event-ID": "1"])
        let resync = try events.nextEvent(timeout: 10)
        #expect(resync.event == "resync")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(resync.data.utf8)) as? [String: Any])
        #expect(body["reason"] as? String == "retention")
        let position = try #require(resync.sequence)
        #expect((body["seq"] as? NSNumber)?.int64Value == position)
        #expect(position == last)

        // The stream continues after the resync's position.
        try server.insertNode(named: "after-resync")
        let next = try events.nextEvent(timeout: 10)
        #expect(next.event == "commit")
        #expect(next.sequence == position + 1)

        // A resume point beyond the last sequence: resync too.
        let ahead = try server.events(headers: ["Last-Event-ID": "\(last + 1_000)"])
        #expect(try ahead.nextEvent(timeout: 10).event == "resync")
    }

    @Test func sigtermWithClientsConnectedExitsCleanly() throws {
        let server = try NodeBoardServer()
        let clients = try (0..<3).map { _ in try server.events() }
        try server.insertNode(named: "before-shutdown")
        for client in clients { #expect(try client.nextEvent(timeout: 10).event == "commit") }

        // A functional requirement, not a speed measurement: it must end within 5 s.
        let exit = try #require(server.stop(timeout: 5), "node-board still ran 5 s after SIGTERM")
        #expect(exit.status == 0 && !exit.signaled, "exit \(exit.status); stderr: \(server.process.stderr)")
        for client in clients { #expect(client.closedByServer(within: 5)) }
        let check = try server.storectl(["check"])
        #expect(check.status == 0, "storectl check: \(check.stdout) \(check.stderr)")
    }

    @Test func nonLoopbackHostWithoutTokenIsRefused() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["NODE_BOARD_TOKEN"] = nil
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("refused-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try ChildProcess.run(
            try BuiltProducts.nodeBoard(), ["--db", path, "--host", "0.0.0.0", "--port", "0"], environment: environment,
            timeout: 30)
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.lowercased().contains("token"), "stderr: \(result.stderr)")

        // With a token it starts.
        environment["NODE_BOARD_TOKEN"] = "secret"
        let server = try NodeBoardServer(arguments: ["--host", "0.0.0.0"], environment: environment)
        #expect(server.stop(timeout: 5)?.status == 0)
    }
}
