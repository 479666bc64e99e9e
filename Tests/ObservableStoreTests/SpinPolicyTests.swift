import TestScheduling
import Testing

@testable import ObservableStore

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct SpinPolicyTests {
    let start = ContinuousClock.now

    @Test func aThreadWhoseTurnsComeCloseTogetherSpinsForTheWholeWindow() {
        var policy = SpinPolicy(window: .microseconds(200))
        #expect(policy.spinDeadline(after: start) == start + .microseconds(200))
        let kept1 = policy.recordTurn(gap: .microseconds(3), at: start + .microseconds(3))
        #expect(kept1)
        // An interrupt's worth of gap, up to the 1 ms limit, is not a lost time slice.
        let kept2 = policy.recordTurn(gap: .milliseconds(1), at: start + .milliseconds(1))
        #expect(kept2)
        #expect(policy.spinDeadline(after: start + .milliseconds(2)) == start + .milliseconds(2) + .microseconds(200))
    }

    @Test func aLateTurnStopsSpinningForThePauseThenSpinningResumes() {
        var policy = SpinPolicy(window: .microseconds(200), pauseAfter: .microseconds(50), pause: .milliseconds(100))
        let late = start + .milliseconds(4)
        let kept3 = policy.recordTurn(gap: .microseconds(51), at: late)
        #expect(!kept3)
        // While paused, the thread sleeps right after each delivery.
        #expect(policy.spinDeadline(after: late) == late)
        #expect(policy.spinDeadline(after: late + .milliseconds(99)) == late + .milliseconds(99))
        // After the pause it spins again, and another late turn pauses it again from then.
        let after = late + .milliseconds(100)
        #expect(policy.spinDeadline(after: after) == after + .microseconds(200))
        let kept4 = policy.recordTurn(gap: .milliseconds(2), at: after)
        #expect(!kept4)
        #expect(policy.spinDeadline(after: after + .milliseconds(50)) == after + .milliseconds(50))
    }

    @Test func pausesThatFollowEachOtherGrowUpToTheLongestThenStartOverAfterAGoodSpell() {
        var policy = SpinPolicy(
            window: .microseconds(200), pauseAfter: .microseconds(50), pause: .milliseconds(100),
            longestPause: .milliseconds(400))
        var now = start
        // Each failure right after the previous pause ends doubles the pause: 100, 200, 400, then 400 again.
        for expected in [100, 200, 400, 400] {
            let kept = policy.recordTurn(gap: .milliseconds(3), at: now)
            #expect(!kept)
            #expect(policy.isPaused(at: now + .milliseconds(expected) - .microseconds(1)))
            #expect(!policy.isPaused(at: now + .milliseconds(expected)))
            now = now + .milliseconds(expected) + .milliseconds(1)
        }
        // A failure more than the longest pause after the last pause ended starts again from the first pause.
        now = now + .milliseconds(400)
        let kept = policy.recordTurn(gap: .milliseconds(3), at: now)
        #expect(!kept)
        #expect(!policy.isPaused(at: now + .milliseconds(100)))
    }

    @Test func slowPickupsPauseSpinningAndAnOccasionalOneDoesNot() {
        var policy = SpinPolicy(window: .microseconds(200), slowPickup: .microseconds(20))
        // Quick pickups, then one of 100 µs (an interrupt): the average of the last ~8 stays under 20 µs.
        for index in 0..<20 { policy.recordPickup(after: .microseconds(2), at: start + .microseconds(index)) }
        policy.recordPickup(after: .microseconds(100), at: start + .microseconds(30))
        #expect(!policy.isPaused(at: start + .microseconds(31)))
        // Pickups that keep taking what a wake-up takes pause spinning.
        var now = start + .milliseconds(1)
        while !policy.isPaused(at: now) && now < start + .milliseconds(2) {
            policy.recordPickup(after: .microseconds(60), at: now)
            now = now + .microseconds(10)
        }
        #expect(policy.isPaused(at: now))
        #expect(now < start + .milliseconds(1) + .microseconds(50), "paused after at most 5 slow pickups")
    }

    @Test func aSpinningThreadIsStalledOnlyWhenItsLastTurnIsOlderThanTheLimit() {
        let policy = SpinPolicy(window: .microseconds(200), stalledAfter: .microseconds(50))
        #expect(!policy.isStalled(lastTurn: start, at: start + .microseconds(50)))
        #expect(policy.isStalled(lastTurn: start, at: start + .microseconds(51)))
    }

    @Test func aZeroWindowNeverSpins() {
        let policy = SpinPolicy(window: .zero)
        #expect(policy.spinDeadline(after: start) == start)
    }
}
