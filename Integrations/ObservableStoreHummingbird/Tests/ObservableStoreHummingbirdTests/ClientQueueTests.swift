import CoreMetrics
import Foundation
import Hummingbird
import ObservableStore
import Testing

@testable import ObservableStoreHummingbird

/// A client's bounded queue: overflow, the seam between replay and live frames, heartbeats, the end.
@Suite(.timeLimit(.minutes(10)))
struct ClientQueueTests {
    private func queue(capacity: Int) -> ClientQueue {
        ClientQueue(capacity: capacity, backlog: Meter(label: "backlog", dimensions: [], factory: NOOPMetricsHandler.instance))
    }

    private func frame(_ sequence: Int64) -> EventFrame {
        EventFrame(bytes: ByteBuffer(string: "id: \(sequence)\n\n"), sequence: sequence, committedAt: nil)
    }

    @Test func anOverflowDropsTheQueuedFramesAndTheRestOfTheirCommitAndKeepsItsNewestSequence() async throws {
        let queue = queue(capacity: 2)
        #expect(queue.push(frame(1)) == 1)
        #expect(queue.push(frame(2)) == 1)
        #expect(queue.push(frame(3)) == -2)  // full: 1 and 2 dropped, and 3 with them
        #expect(queue.push(frame(3)) == 0)  // a later piece of commit 3 goes too
        #expect(queue.push(frame(4)) == 1)
        let batch = try #require(await queue.next())
        #expect(batch.overflowedAt == 3)
        #expect(batch.frames.map(\.sequence) == [4])
    }

    @Test func goingLiveDropsWhatTheReplaySentAndAsksForMoreReplayAfterAnOverflowBeyondIt() async throws {
        let queue = queue(capacity: 2)
        for sequence in Int64(1)...3 { queue.push(frame(sequence)) }  // overflows at 3
        queue.push(frame(4))
        #expect(!queue.startLive(after: 2))  // 3 was dropped and not replayed: read the log on
        #expect(queue.startLive(after: 3))
        let batch = try #require(await queue.next())
        #expect(batch.overflowedAt == nil)
        #expect(batch.frames.map(\.sequence) == [4])
    }

    @Test func framesTheReplayAlreadySentAreDroppedWhenTheyComeLateToo() async throws {
        let queue = queue(capacity: 4)
        queue.push(frame(1))
        #expect(queue.startLive(after: 3))  // the replay read up to 3 while the stream's reader was still at 1
        #expect(queue.push(frame(2)) == 0)
        #expect(queue.push(frame(3)) == 0)
        #expect(queue.push(frame(4)) == 1)
        let batch = try #require(await queue.next())
        #expect(batch.frames.map(\.sequence) == [4])
    }

    @Test func theRestOfAnOverflowedCommitIsNotSentAfterItsResync() async throws {
        let queue = queue(capacity: 1)
        queue.push(frame(1))
        queue.push(frame(2))  // overflows at 2: the resync covers commit 2
        let batch = try #require(await queue.next())
        #expect(batch.overflowedAt == 2)
        #expect(queue.push(frame(2)) == 0)  // a later piece of commit 2
        #expect(queue.push(frame(3)) == 1)
        #expect(try #require(await queue.next()).frames.map(\.sequence) == [3])
    }

    @Test func aHeartbeatIsQueuedOnlyWhenNothingElseWaits() async throws {
        let queue = queue(capacity: 4)
        queue.pushHeartbeatIfIdle()
        queue.pushHeartbeatIfIdle()
        #expect(try #require(await queue.next()).frames.count == 1)
        queue.push(frame(1))
        queue.pushHeartbeatIfIdle()
        #expect(try #require(await queue.next()).frames.map(\.sequence) == [1])
    }

    @Test func aFinishedQueueHandsOverWhatItHoldsThenEnds() async throws {
        let queue = queue(capacity: 4)
        queue.push(frame(1))
        queue.finish()
        queue.push(frame(2))  // after the end: ignored
        #expect(try #require(await queue.next()).frames.map(\.sequence) == [1])
        #expect(await queue.next() == nil)
    }

    @Test func aWaitingWriterWakesForAFrameAndForTheEnd() async throws {
        let queue = queue(capacity: 4)
        async let first = queue.next()
        try await Task.sleep(for: .milliseconds(20))
        queue.push(frame(7))
        #expect(await first?.frames.map(\.sequence) == [7])
        async let end = queue.next()
        try await Task.sleep(for: .milliseconds(20))
        queue.finish()
        #expect(await end == nil)
    }
}
