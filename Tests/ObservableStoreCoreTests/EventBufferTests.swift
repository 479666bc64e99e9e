import Foundation
import ObservableStoreCore
import TestScheduling
import Testing

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct EventBufferTests {
    private static let committedAt = Date(timeIntervalSince1970: 1_800_000_000)

    private func commit(_ sequence: Int64) -> StoreEvent {
        .commit(Commit(sequence: sequence, committedAt: Self.committedAt, origin: nil, changes: [], schemaChanged: false))
    }

    @Test func commitsPastTheCapacityBecomeOneResyncNamingThem() {
        var buffer = EventBuffer(capacity: 2)
        for sequence in Int64(1)...6 { buffer.push(commit(sequence)) }
        #expect(buffer.count == 3)
        #expect(buffer.pop() == commit(1))
        #expect(buffer.pop() == commit(2))
        #expect(buffer.pop() == .resync(.missedCommits(3...6)))
        #expect(buffer.pop() == nil)
    }

    @Test func aResyncWithARangeFoldsIntoThePendingOneAndAnExternalChangeIsKeptUntilThen() {
        var buffer = EventBuffer(capacity: 1)
        buffer.push(commit(1))
        buffer.push(.resync(.externalChange))  // full, but nothing missed yet: kept
        buffer.push(commit(2))
        buffer.push(.resync(.missedCommits(3...4)))
        buffer.push(.resync(.externalChange))  // a pending missed range already says "read again"
        #expect(buffer.pop() == commit(1))
        #expect(buffer.pop() == .resync(.externalChange))
        #expect(buffer.pop() == .resync(.missedCommits(2...4)))
        #expect(buffer.pop() == nil)
    }

    @Test func droppingThroughASequenceTrimsTheMissedRange() {
        var buffer = EventBuffer(capacity: 1)
        for sequence in Int64(1)...5 { buffer.push(commit(sequence)) }
        buffer.drop(through: 3)
        #expect(buffer.pop() == .resync(.missedCommits(4...5)))
        #expect(buffer.pop() == nil)
    }

    @Test func aResyncSaysWhichCommitsItCovers() {
        #expect(StoreEvent.resync(.missedCommits(3...7)).sequence == 7)
        #expect(StoreEvent.resync(.externalChange).sequence == nil)
        #expect(ResyncReason.cursorExpired(missed: 1...2).missed == 1...2)
        #expect("\(ResyncReason.missedCommits(3...7))" == "missed commits 3...7")
    }
}
