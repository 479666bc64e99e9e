/// When the delivery thread may keep looking for work instead of sleeping.
///
/// Looking for work pays only while the thread has a CPU of its own. When another runnable thread shares
/// its CPU (on a 2-core machine, a busy writer and one more process are enough), each `sched_yield` hands
/// that thread a whole time slice, up to a 4 ms scheduler tick, and work handed over meanwhile waits for
/// it. On a VM whose host is short of CPUs, a spinning virtual CPU also takes time from the writer's.
/// A sleeping thread has neither problem: the kernel wakes it on whichever CPU is free.
///
/// So the thread spins only while that pays:
/// - a spinning thread whose last turn is more than ``stalledAfter`` old is not running now, and is not
///   handed work (a thread woken elsewhere gets it sooner);
/// - spinning pauses when work handed to the spinning thread waits on average more than ``slowPickup``
///   (about what waking a thread costs) before the thread takes it;
/// - spinning pauses after a turn that comes more than ``pauseAfter`` after the previous one (a lost time
///   slice, not an interrupt's tens of microseconds).
///
/// While paused, the thread sleeps after each delivery. A pause lasts ``pause``, doubling up to
/// ``longestPause`` each time spinning fails again within ``longestPause`` of the previous pause's end
/// (the CPU is short for a while); a failure after a longer good spell starts again from ``pause``.
package struct SpinPolicy {
    /// How long to keep looking for work after a delivery.
    package let window: Duration
    /// A spinning thread whose last turn is older than this is not running now.
    package let stalledAfter: Duration
    /// A gap between two turns longer than this means the thread lost its CPU for a time slice.
    package let pauseAfter: Duration
    /// The first pause of spinning after such a gap.
    package let pause: Duration
    /// The longest pause.
    package let longestPause: Duration
    /// Spinning pauses when work handed to the spinning thread waits longer than this on average.
    package let slowPickup: Duration
    private var suspendedUntil: ContinuousClock.Instant?
    private var currentPause: Duration
    private var averagePickup = Duration.zero

    package init(
        window: Duration, stalledAfter: Duration = .microseconds(50), pauseAfter: Duration = .milliseconds(1),
        pause: Duration = .milliseconds(5), longestPause: Duration = .seconds(5), slowPickup: Duration = .microseconds(20)
    ) {
        self.window = window
        self.stalledAfter = stalledAfter
        self.pauseAfter = pauseAfter
        self.pause = pause
        self.longestPause = longestPause
        self.slowPickup = slowPickup
        self.currentPause = pause
    }

    /// Until when to look for work after a delivery that ended at `now`; `now` itself when the thread
    /// should sleep at once.
    package func spinDeadline(after now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        isPaused(at: now) ? now : now + window
    }

    /// Records a turn that came `gap` after the previous one; false when the thread should stop
    /// spinning (and sleep) because it is not getting the CPU.
    package mutating func recordTurn(gap: Duration, at now: ContinuousClock.Instant) -> Bool {
        guard gap > pauseAfter else { return true }
        pauseSpinning(at: now)
        return false
    }

    /// Records how long work handed to the spinning thread waited before the thread took it. Spinning
    /// pays only while that is well under a thread wake-up: when the running average (of the last ~8)
    /// goes over ``slowPickup``, spinning pauses.
    package mutating func recordPickup(after delay: Duration, at now: ContinuousClock.Instant) {
        averagePickup += (delay - averagePickup) / 8
        if averagePickup > slowPickup {
            averagePickup = .zero
            pauseSpinning(at: now)
        }
    }

    private mutating func pauseSpinning(at now: ContinuousClock.Instant) {
        if let suspendedUntil, now - suspendedUntil < longestPause {
            currentPause = min(currentPause * 2, longestPause)
        } else {
            currentPause = pause
        }
        suspendedUntil = now + currentPause
    }

    /// Whether spinning is paused at `now`.
    package func isPaused(at now: ContinuousClock.Instant) -> Bool {
        guard let suspendedUntil else { return false }
        return now < suspendedUntil
    }

    /// Whether a spinning thread whose last turn was at `lastTurn` has gone without the CPU for too long
    /// to be handed work at `now`.
    package func isStalled(lastTurn: ContinuousClock.Instant, at now: ContinuousClock.Instant) -> Bool {
        now - lastTurn > stalledAfter
    }
}
