import ObservableStoreCore
import TestScheduling
import Testing

/// The rules of an observed value, at the channel: newer and different values only, the latest wins, an
/// error once then the end.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct LatestValueChannelTests {
    private struct Failure: Error {}

    @Test func onlyANewerDifferentValueIsAcceptedAndTheLatestWins() async throws {
        let channel = LatestValueChannel<Int>(isSame: ==)
        let values = ObservedValues(channel: channel)
        channel.offer(10, sequence: 3)
        channel.offer(10, sequence: 4)  // the same value again: dropped
        channel.offer(11, sequence: 2)  // older: dropped
        var iterator = values.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.value == 10 && first?.sequence == 3)
        channel.offer(12, sequence: 5)
        channel.offer(13, sequence: 6)  // not taken yet: replaces 12
        let second = try await iterator.next()
        #expect(second?.value == 13 && second?.sequence == 6)
        channel.offer(12, sequence: 7)  // differs from the last accepted (13): accepted, though 12 was seen
        let third = try await iterator.next()
        #expect(third?.value == 12 && third?.sequence == 7)
    }

    @Test func aWaitingValueThatChangesBackToTheTakenOneIsDropped() async throws {
        let channel = LatestValueChannel<String>(isSame: ==)
        var iterator = ObservedValues(channel: channel).makeAsyncIterator()
        channel.offer("A", sequence: 1)
        #expect(try await iterator.next()?.value == "A")
        channel.offer("B", sequence: 2)  // waits: the consumer is slow
        channel.offer("A", sequence: 3)  // back to what the consumer has: B is dropped, A is not offered again
        channel.offer("A", sequence: 4)
        channel.finish()
        #expect(try await iterator.next() == nil, "the consumer took A; A again would repeat it")
    }

    @Test func aValueThatChangesBackAndAgainIsHandedOnceWithItsNewestSequence() async throws {
        let channel = LatestValueChannel<String>(isSame: ==)
        var iterator = ObservedValues(channel: channel).makeAsyncIterator()
        channel.offer("A", sequence: 1)
        #expect(try await iterator.next()?.value == "A")
        channel.offer("B", sequence: 2)
        channel.offer("A", sequence: 3)  // drops B
        channel.offer("B", sequence: 4)  // differs from A, which the consumer has: waits
        channel.offer("B", sequence: 2)  // old: dropped
        let next = try await iterator.next()
        #expect(next?.value == "B" && next?.sequence == 4)
    }

    @Test func aFailureEndsTheSequenceAfterWhatIsPendingOnce() async throws {
        let channel = LatestValueChannel<Int>(isSame: ==)
        var iterator = ObservedValues(channel: channel).makeAsyncIterator()
        channel.offer(1, sequence: 1)
        channel.fail(Failure())
        channel.offer(2, sequence: 2)  // after the end: dropped
        #expect(try await iterator.next()?.value == 1)
        await #expect(throws: Failure.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }
}
