import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A thread kept warm for listener deliveries: it runs a listener's drain as soon as one is handed to
/// it, then keeps looking for the next one for its spin window (the SQLite engine's `SQLiteStoreConfiguration.deliverySpinWindow`)
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
package final class DeliveryThread: Sendable {
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

    /// What the thread and the threads handing it work share.
    private struct Shared {
        var state = State.sleeping
        var pending: (@Sendable () -> Void)?
        var stopRequested = false
        var offers = 0
        /// When the thread last looked for work (while spinning).
        var lastTurn = ContinuousClock.now
        /// When the work in `pending` was handed over, if the thread was spinning then.
        var handedToSpinningAt: ContinuousClock.Instant?
        var policy: SpinPolicy
    }

    private let shared: Mutex<Shared>
    private let wake = DispatchSemaphore(value: 0)

    /// The thread's name as tools (`top -H`, `perf`, debuggers) show it: at most 15 bytes on Linux.
    package static let threadName = "store-delivery"

    /// A thread that looks for work for `spinWindow` after each delivery (``SpinPolicy`` permitting).
    package init(spinWindow: Duration) {
        self.shared = Mutex(Shared(policy: SpinPolicy(window: spinWindow)))
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
        let wasSleeping = shared.withLock { shared -> Bool? in
            shared.offers += 1
            guard !shared.stopRequested, shared.state == .spinning || shared.state == .sleeping else { return nil }
            let sleeping = shared.state == .sleeping
            if sleeping {
                shared.handedToSpinningAt = nil
            } else {
                let now = ContinuousClock.now
                if shared.policy.isStalled(lastTurn: shared.lastTurn, at: now) { return nil }
                shared.handedToSpinningAt = now
            }
            shared.state = .busy
            shared.pending = work
            return sleeping
        }
        guard let wasSleeping else { return false }
        if wasSleeping { wake.signal() }
        return true
    }

    /// How many times work was offered through ``tryRun(_:)``, taken or not (for tests of who uses the thread).
    package var offerCount: Int { shared.withLock { $0.offers } }

    /// Whether ``SpinPolicy`` has paused spinning (for tests).
    package var spinningIsPaused: Bool { shared.withLock { $0.policy.isPaused(at: .now) } }

    /// Ends the thread after the work it holds, if any. Later ``tryRun(_:)`` calls return false.
    package func stop() {
        let wasSleeping = shared.withLock { shared -> Bool in
            shared.stopRequested = true
            return shared.state == .sleeping
        }
        if wasSleeping { wake.signal() }
    }

    private func run() {
        var spinUntil = ContinuousClock.now
        while true {
            let (work, next) = shared.withLock { shared -> ((@Sendable () -> Void)?, State) in
                if let work = shared.pending {
                    shared.pending = nil
                    if let handedAt = shared.handedToSpinningAt {
                        let now = ContinuousClock.now
                        shared.policy.recordPickup(after: now - handedAt, at: now)
                    }
                    return (work, .busy)
                }
                if shared.stopRequested {
                    shared.state = .stopped
                    return (nil, .stopped)
                }
                // `tryRun` hands work over only in these two states; when it does, it sets `busy`.
                let now = ContinuousClock.now
                let gotTheCPU = shared.state != .spinning || shared.policy.recordTurn(gap: now - shared.lastTurn, at: now)
                shared.lastTurn = now
                shared.state = gotTheCPU && now < spinUntil ? .spinning : .sleeping
                return (nil, shared.state)
            }
            switch next {
            case .busy:
                work?()
                let now = ContinuousClock.now
                spinUntil = shared.withLock { shared in
                    shared.state = .spinning
                    shared.lastTurn = now
                    return shared.policy.spinDeadline(after: now)
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
