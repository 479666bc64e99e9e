import Foundation
import Hummingbird
import HummingbirdTesting
import ObservableStore
import ObservableStoreHummingbird
import Testing

/// The SSE route on a live server and a real store file: live commits, resume, resync, filters, slow clients,
/// heartbeats, foreign writes.
@Suite(.timeLimit(.minutes(10)))
struct CommitStreamTests {
    @Test func aLiveCommitArrivesWithItsSequenceAsIDAndTheWatchShape() async throws {
        try await StreamHarness.run { harness in try await StreamCases.aLiveCommitArrivesWithItsSequenceAsIDAndTheWatchShape(harness) }
    }

    @Test func aCommitOfAnotherStoreOnTheSameFileArrives() async throws {
        try await StreamHarness.run { harness in
            try await StreamCases.aCommitOfAnotherStoreArrives(harness, other: try SQLiteStore(path: harness.path))
        }
    }

    @Test func theResponseHasTheStreamingHeaders() async throws {
        try await StreamHarness.run { harness in
            let client = try harness.connect(query: "?since=0")
            #expect(try await client.responseStatus() == 200)
            let head = try await client.head()
            #expect(head.contains("content-type: text/event-stream"))
            #expect(head.contains("cache-control: no-store"))
            #expect(head.contains("x-accel-buffering: no"))
        }
    }

    @Test func theStreamFirstSetsTheReconnectDelayToOneSecond() async throws {
        try await StreamHarness.run { harness in
            try harness.insertNode("before")
            for query in ["", "?since=0"] {
                let client = try harness.connect(query: query)
                let first = try await client.next(timeout: .seconds(10), heartbeats: true)
                #expect(first == SSEClient.Frame(retry: 1000))  // a frame of its own, before any replayed commit
            }
        }
    }

    @Test func aClientResumesAfterLastEventIDOrSinceWithExactlyTheMissedCommitsThenLiveOnes() async throws {
        try await StreamHarness.run { harness in
            try await StreamCases.aClientResumesAfterLastEventIDOrSinceWithExactlyTheMissedCommitsThenLiveOnes(harness)
        }
    }

    @Test func commitsMadeWhileClientsReplayAreNeitherLostNorDoubled() async throws {
        try await StreamHarness.run { harness in
            for index in 1...150 { try harness.insertNode("before \(index)") }
            let store = harness.store
            let writer = Thread {
                for index in 1...150 { _ = try? store.write { tx in try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, 1, 2)", ["during \(index)"]) } }
            }
            writer.start()
            var clients: [SSEClient] = []
            for index in 0..<6 {
                clients.append(try harness.connect(query: "?since=\(index * 20)"))
                try await Task.sleep(for: .milliseconds(3))
            }
            for (index, client) in clients.enumerated() {
                let start = Int64(index * 20)
                let frames = try await client.next(300 - Int(start), timeout: .seconds(60))
                #expect(frames.map(\.id) == Array((start + 1)...300).map { Optional($0) }, "client \(index)")
            }
            #expect(try harness.store.lastSequence() == 300)
        }
    }

    @Test func aResumePointThePrunedLogNoLongerHoldsGetsAResyncThenLiveCommits() async throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = RetentionPolicy(minimumKeptCommits: 2, minimumKeptAge: nil, pruneInterval: 1_000_000)
        try await StreamHarness.run(configuration: configuration) { harness in
            for index in 1...10 { try harness.insertNode("n\(index)") }
            #expect(try harness.store.pruneChangeLog() > 0)
            let client = try harness.connect(headers: ["Last-Event-ID": "3"])
            let resync = try await client.next()
            #expect(resync.event == "resync")
            #expect(resync.id == 10)
            #expect(resync.json["reason"] as? String == "retention")
            #expect(resync.json["seq"] as? Int == 10)
            try await harness.waitForClients(1)
            let live = try harness.insertNode("live")
            #expect(try await client.next().id == live)
        }
    }

    @Test func aResumePointBeyondTheEndGetsAResyncAtTheLastSequence() async throws {
        try await StreamHarness.run { harness in
            for index in 1...2 { try harness.insertNode("n\(index)") }
            let client = try harness.connect(query: "?since=40")
            let resync = try await client.next()
            #expect(resync.event == "resync")
            #expect(resync.id == 2)
            #expect(resync.json["reason"] as? String == "retention")
            try await harness.waitForClients(1)
            let live = try harness.insertNode("live")
            #expect(try await client.next().id == live)
        }
    }

    @Test func aMalformedResumePointIsRefusedNamingIt() async throws {
        try await StreamHarness.run { harness in
            try await harness.client.execute(uri: "/events?since=abc", method: .get) { response in
                #expect(response.status == .badRequest)
                let body = String(buffer: response.body)
                #expect(body.contains("\"code\":\"bad_parameter\""))
                #expect(body.contains("\"field\":\"since\""))
            }
            try await harness.client.execute(uri: "/events", method: .get, headers: [.init("Last-Event-ID")!: "-1"]) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("\"field\":\"Last-Event-ID\""))
            }
        }
    }

    @Test func theStreamsFilterLeavesOutOtherCommitsInReplayAndLive() async throws {
        let options = CommitStreamOptions(filter: ChangeFilter(origins: ["keep"]), heartbeatInterval: .seconds(60))
        try await StreamHarness.run(options: options) { harness in
            try harness.insertNode("a", origin: "skip")
            let kept = try harness.insertNode("b", origin: "keep")
            let client = try harness.connect(query: "?since=0")
            #expect(try await client.next().id == kept)
            try await harness.waitForClients(1)
            try harness.insertNode("c", origin: "skip")
            let live = try harness.insertNode("d", origin: "keep")
            #expect(try await client.next().id == live)
        }
    }

    @Test func aStalledClientGetsAnOverflowResyncWhileTheWriterAndOtherClientsGoOn() async throws {
        let options = CommitStreamOptions(heartbeatInterval: .seconds(60), clientBufferSize: 4)
        try await StreamHarness.run(options: options) { harness in
            let stalled = try harness.connect(query: "?since=0", reading: false, receiveBuffer: 4096)
            let reader = try harness.connect(query: "?since=0")
            try await harness.waitForClients(2)
            // About 16 MB of frames: more than the stalled socket's kernel buffers hold. The reader keeps up (its
            // buffer is as small), and every write returns while the stalled client's response is stuck.
            let big = String(repeating: "x", count: 80_000)
            for index in 1...200 {
                let sequence = try harness.insertNode("\(index) \(big)")
                #expect(try await reader.next(timeout: .seconds(20)).id == sequence)
            }
            stalled.startReading()
            var resync: SSEClient.Frame?
            while resync == nil {
                let frame = try await stalled.next(timeout: .seconds(20))
                if frame.event == "resync" { resync = frame }
            }
            #expect(resync?.json["reason"] as? String == "overflow")
            #expect(harness.metric("observable_store_sse_resyncs_total{stream=\"events\",reason=\"overflow\"}") == 1)
            let live = try harness.insertNode("after")
            var last = try await stalled.next(timeout: .seconds(20))
            while last.id != live { last = try await stalled.next(timeout: .seconds(20)) }
            #expect(last.event == "commit")
        }
    }

    @Test func anIdleClientGetsHeartbeats() async throws {
        try await StreamHarness.run(options: CommitStreamOptions(heartbeatInterval: .milliseconds(50))) { harness in
            let client = try harness.connect()
            #expect(try await client.next(timeout: .seconds(10), heartbeats: true).retry == 1000)
            let first = try await client.next(timeout: .seconds(10), heartbeats: true)
            let second = try await client.next(timeout: .seconds(10), heartbeats: true)
            #expect(first.comment == "ping")
            #expect(second.comment == "ping")
        }
    }

    @Test func aWriteByTheSQLiteShellIsAnExternalChangeResync() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 shell is missing: apt-get install -y sqlite3")
        try await StreamHarness.run { harness in
            try harness.insertNode("before")
            let client = try harness.connect(query: "?since=1")
            try await harness.waitForClients(1)
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            shell.arguments = [harness.path, "INSERT INTO nodes (name, x, y) VALUES ('shell', 1, 2);"]
            try shell.run()
            shell.waitUntilExit()
            #expect(shell.terminationStatus == 0)
            let resync = try await client.next(timeout: .seconds(20))
            #expect(resync.event == "resync")
            #expect(resync.json["reason"] as? String == "external_change")
            #expect(resync.id == 2)
            #expect(resync.json["seq"] as? Int == 2)
            let after = try harness.insertNode("after")
            #expect(try await client.next().id == after)
        }
    }

    @Test func aCommitLoggedInPiecesGoesOutAsOneFramePerPieceWithTheIDOnTheLast() async throws {
        try await StreamHarness.run { harness in
            let client = try harness.connect(query: "?since=0")
            try await harness.waitForClients(1)
            // About 8 MB in one transaction: more than one piece of the change log (a few MiB each).
            let big = String(repeating: "p", count: 100_000)
            let sequence = try await harness.store.writeReturningCommit { tx in
                for index in 1...80 { try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, 1, 2)", ["\(index) \(big)"]) }
            }.sequence ?? 0
            var frames: [SSEClient.Frame] = []
            while frames.last?.id == nil { frames.append(try await client.next(timeout: .seconds(30))) }
            #expect(frames.count > 1)
            #expect(frames.dropLast().allSatisfy { $0.id == nil && $0.event == "commit" })
            #expect(frames.last?.id == sequence)
            let pieces = frames.map { $0.json["piece"] as? [Int] ?? [] }
            #expect(pieces == (0..<frames.count).map { [$0, frames.count] })
            #expect(frames.map { $0.json["seq"] as? Int }.allSatisfy { $0 == Int(sequence) })
            #expect(frames.reduce(0) { $0 + (($1.json["changes"] as? [Any])?.count ?? 0) } == 80)
            // A client resuming before it replays the same frames from the log.
            let replaying = try harness.connect(query: "?since=0")
            let replayed = try await replaying.next(frames.count, timeout: .seconds(30))
            #expect(replayed.map(\.id) == frames.map(\.id))
            #expect(replayed.map(\.data) == frames.map(\.data))
        }
    }

    @Test func aClientThatGoesAwayIsRemoved() async throws {
        try await StreamHarness.run(options: CommitStreamOptions(heartbeatInterval: .milliseconds(50))) { harness in
            let client = try harness.connect(query: "?since=0")
            try await harness.waitForClients(1)
            client.disconnect()
            // The next write to it (a heartbeat at the latest) fails, and its response ends.
            try await harness.waitForClients(0)
            #expect(harness.metric("observable_store_sse_clients{stream=\"events\"}") == 0)
        }
    }

    @Test func aClientWhoseQueueOverflowsWhileItReplaysReadsOnFromTheLogWithoutAResync() async throws {
        let options = CommitStreamOptions(heartbeatInterval: .seconds(60), clientBufferSize: 16)
        try await StreamHarness.run(options: options) { harness in
            // About 15 MB to replay: the replay stalls in a write while the client does not read.
            let big = String(repeating: "r", count: 50_000)
            for index in 1...300 { try harness.insertNode("\(index) \(big)") }
            let client = try harness.connect(query: "?since=0", reading: false, receiveBuffer: 4096)
            try await harness.waitForClients(1)
            try await Task.sleep(for: .milliseconds(200))
            for index in 1...100 { try harness.insertNode("live \(index)") }  // more than the 16 frames its queue holds
            client.startReading()
            let frames = try await client.next(400, timeout: .seconds(60))
            #expect(frames.allSatisfy { $0.event == "commit" })
            #expect(frames.map(\.id) == (1...400).map { Optional(Int64($0)) })
        }
    }
}
