import Foundation
import ObservableStore
import Testing

/// The stream's main promises as cases over a store of either engine: `CommitStreamTests` runs them on SQLite,
/// `PostgresCommitStreamTests` on PostgreSQL.
enum StreamCases {
    /// A live commit arrives as one `commit` frame whose `id:` is its sequence, in `storectl watch`'s shape.
    static func aLiveCommitArrivesWithItsSequenceAsIDAndTheWatchShape(_ harness: StreamHarness<some RecordStore>) async throws {
        let client = try harness.connect()
        #expect(try await client.responseStatus() == 200)
        try await harness.waitForClients(1)
        // A client without a resume point starts at the last sequence it saw at connection: write until one arrives.
        // On a loaded machine a frame may come after its wait gave up, while the next write is made: it is then the
        // frame of an earlier write, which is as good (every write is the same node).
        var frame: SSEClient.Frame?
        var written: [Int64] = []
        for _ in 0..<50 where frame == nil {
            written.append(try harness.insertNode("live", origin: "node-board"))
            frame = try? await client.next(timeout: .milliseconds(200))
        }
        let received = try #require(frame)
        #expect(received.event == "commit")
        let sequence = try #require(received.id)
        #expect(written.contains(sequence))
        let json = received.json
        #expect(json["seq"] as? Int == Int(sequence))
        #expect(json["origin"] as? String == "node-board")
        #expect((json["ts"] as? String)?.hasSuffix("Z") == true)
        let changes = try #require(json["changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["table"] as? String == "nodes")
        #expect(changes.first?["op"] as? String == "insert")
        let columns = try #require(changes.first?["changes"] as? [String: Any])
        #expect(columns["name"] as? String == "live")
        #expect(Set(columns.keys) == ["id", "name", "x", "y", "color", "width", "height", "created_at", "updated_at"])
        #expect(received.data?.contains("\"x\":1.5") == true)
    }

    /// `Last-Event-ID` (or `?since=`, which the header overrides) replays exactly the commits after it, then the
    /// live ones follow.
    static func aClientResumesAfterLastEventIDOrSinceWithExactlyTheMissedCommitsThenLiveOnes(
        _ harness: StreamHarness<some RecordStore>
    ) async throws {
        for index in 1...3 { try harness.insertNode("n\(index)") }
        let byHeader = try harness.connect(headers: ["Last-Event-ID": "1"])
        let byQuery = try harness.connect(query: "?since=1")
        let headerWins = try harness.connect(query: "?since=0", headers: ["Last-Event-ID": "2"])
        #expect(try await byHeader.next(2).map(\.id) == [2, 3])
        #expect(try await byQuery.next(2).map(\.id) == [2, 3])
        #expect(try await headerWins.next().id == 3)
        try await harness.waitForClients(3)
        let live = try harness.insertNode("live")
        for client in [byHeader, byQuery, headerWins] {
            let frame = try await client.next()
            #expect(frame.id == live)
            #expect(frame.event == "commit")
        }
    }

    /// Commits of another store on the same data (another process, another host) reach the stream in order, with
    /// their origin, and nothing else does. `other` is closed afterwards.
    static func aCommitOfAnotherStoreArrives<S: RecordStore>(_ harness: StreamHarness<S>, other: S) async throws {
        defer { other.close() }
        let client = try harness.connect(query: "?since=0")
        try await harness.waitForClients(1)
        var sequences: [Int64] = []
        for index in 1...3 {
            let written = try await other.writeReturningCommit(origin: "elsewhere") { tx in
                try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)", ["other \(index)", 1.0, 2.0])
            }
            sequences.append(try #require(written.sequence))
        }
        let frames = try await client.next(3)
        #expect(frames.map(\.id) == sequences.map { Optional($0) })
        #expect(frames.allSatisfy { $0.json["origin"] as? String == "elsewhere" })
        #expect(sequences == [1, 2, 3])
    }
}
