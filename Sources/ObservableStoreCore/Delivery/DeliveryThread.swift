import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A thread kept warm for listener deliveries: it runs a listener's drain as soon as one is handed to
/// it, then keeps looking for the next one for its spin window (the SQLite engine's `StoreConfiguration.deliverySpinWindow`)
/// before it sleeps.
///
/// Why: waking a sleeping thread (what `DispatchQueue.global().async` does when its workers are idle)
/// took 22–28 µs at p50 on this project's 2-core benchmark machine (`handoff_floor` in
/// `Benchmarks/RESULTS.md`), more than half the asynchronous latency budget. A thread that is already
/// running picks the work up in a few microseconds.
///
/// Only one drain runs here at a time. ``tryRun(_:)`` refuses while one does, and the caller then uses
/// the global queue, so a slow handler here delays no other listener. While it looks for work the
/// thread yields the CPU on every turn; after the spin window without work it sleeps until handed
/// some, so an idle store costs no CPU.
///
/// Spinning stops when it does not pay (``SpinPolicy``): when work handed to the spinning thread waits
/// about as long as a wake-up would take, or when its turns come a time slice apart (another thread has
/// its CPU, and work handed to it would wait up to a scheduler tick). Until the policy allows
/// spinning again the thread sleeps after each delivery. And ``tryRun(_:)`` refuses a spinning thread
/// whose last turn is stale, so the work goes to the global queue's freshly woken thread instead.
///
/// `@unchecked Sendable`: `state`, `pending`, `stopRequested`, `offers`, `lastTurn`, `handedToSpinningAt`
/// and `policy` are guarded by `lock`.
package final class DeliveryThread: @unchecked Sendable {
    private enum State {
        /// Looking for work, yielding on every turn.
        case spinning
        /// Asleep on `wake`.
        case sleeping
        /// Running work (or handed work it has not picked up yet).
        case busy
        /// Told to stop, with no work left.
        case stopped
    }

    private let lock = NSLock()
    private var state = State.sleeping
    private var pending: (@Sendable () -> Void)?
    private var stopRequested = false
    private var offers = 0
    /// When the thread last looked for work (while spinning).
    private var lastTurn = ContinuousClock.now
    /// When the work in `pending` was handed over, if the thread was spinning then.
    private var handedToSpinningAt: ContinuousClock.Instant?
    private var policy: SpinPolicy
    private let wake = DispatchSemaphore(value: 0)

    /// The thread's name as tools (`top -H`, `perf`, debuggers) show it: at most 15 bytes on Linux.
    package static let threadName = "store-delivery"

    /// A thread that looks for work for `spinWindow` after each delivery (``SpinPolicy`` permitting).
    package init(spinWindow: Duration) {
        self.policy = SpinPolicy(window: spinWindow)
        let thread = Thread { [self] in
            // Set from the thread itself: a thread otherwise keeps the name of the one that created it.
            Thread.current.name = DeliveryThread.threadName
            run()
        }
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Runs `work` on this thread if it is free; false when it is busy or stopped (run it elsewhere).
    package func tryRun(_ work: @escaping @Sendable () -> Void) -> Bool {
        let wasSleeping = lock.withLock { () -> Bool? in
            offers += 1
            guard !stopRequested, state == .spinning || state == .sleeping else { return nil }
            let sleeping = state == .sleeping
            if sleeping {
                handedToSpinningAt = nil
            } else {
                let now = ContinuousClock.now
                if policy.isStalled(lastTurn: lastTurn, at: now) { return nil }
                handedToSpinningAt = now
            }
            state = .busy
            pending = work
            return sleeping
        }
        guard let wasSleeping else { return false }
        if wasSleeping { wake.signal() }
        return true
    }

    /// How many times work was offered through ``tryRun(_:)``, taken or not (for tests of who uses the thread).
    package var offerCount: Int { lock.withLock { offers } }

    /// Whether ``SpinPolicy`` has paused spinning (for tests).
    package var spinningIsPaused: Bool { lock.withLock { policy.isPaused(at: .now) } }

    /// Ends the thread after the work it holds, if any. Later ``tryRun(_:)`` calls return false.
    package func stop() {
        let wasSleeping = lock.withLock { () -> Bool in
            stopRequested = true
            return state == .sleeping
        }
        if wasSleeping { wake.signal() }
    }

    private func run() {
        var spinUntil = ContinuousClock.now
        while true {
            let (work, next) = lock.withLock { () -> ((@Sendable () -> Void)?, State) in
                if let work = pending {
                    pending = nil
                    if let handedAt = handedToSpinningAt {
                        let now = ContinuousClock.now
                        policy.recordPickup(after: now - handedAt, at: now)
                    }
                    return (work, .busy)
                }
                if stopRequested {
                    state = .stopped
                    return (nil, .stopped)
                }
                // `tryRun` hands work over only in these two states; when it does, it sets `busy`.
                let now = ContinuousClock.now
                let gotTheCPU = state != .spinning || policy.recordTurn(gap: now - lastTurn, at: now)
                lastTurn = now
                state = gotTheCPU && now < spinUntil ? .spinning : .sleeping
                return (nil, state)
            }
            switch next {
            case .busy:
                work?()
                let now = ContinuousClock.now
                spinUntil = lock.withLock {
                    state = .spinning
                    lastTurn = now
                    return policy.spinDeadline(after: now)
                }
            case .spinning:
                sched_yield()
            case .sleeping:
                wake.wait()
            case .stopped:
                return
            }
        }
    }
}
