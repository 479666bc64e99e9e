import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A thread kept warm for listener deliveries: it runs a listener's drain as soon as one is handed to
/// it, then keeps looking for the next one for its spin window (``StoreConfiguration/deliverySpinWindow``)
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
/// `@unchecked Sendable`: `state`, `pending`, `stopRequested` and `offers` are guarded by `lock`.
final class DeliveryThread: @unchecked Sendable {
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

    /// How long the thread keeps looking for work after its last delivery before it sleeps.
    private let spinWindow: Duration
    private let lock = NSLock()
    private var state = State.sleeping
    private var pending: (@Sendable () -> Void)?
    private var stopRequested = false
    private var offers = 0
    private let wake = DispatchSemaphore(value: 0)

    /// The thread's name as tools (`top -H`, `perf`, debuggers) show it: at most 15 bytes on Linux.
    static let threadName = "store-delivery"

    init(spinWindow: Duration) {
        self.spinWindow = spinWindow
        let thread = Thread { [self] in
            // Set from the thread itself: a thread otherwise keeps the name of the one that created it.
            Thread.current.name = DeliveryThread.threadName
            run()
        }
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Runs `work` on this thread if it is free; false when it is busy or stopped (run it elsewhere).
    func tryRun(_ work: @escaping @Sendable () -> Void) -> Bool {
        let wasSleeping = lock.withLock { () -> Bool? in
            offers += 1
            guard !stopRequested, state == .spinning || state == .sleeping else { return nil }
            let sleeping = state == .sleeping
            state = .busy
            pending = work
            return sleeping
        }
        guard let wasSleeping else { return false }
        if wasSleeping { wake.signal() }
        return true
    }

    /// How many times work was offered through ``tryRun(_:)``, taken or not (for tests of who uses the thread).
    var offerCount: Int { lock.withLock { offers } }

    /// Ends the thread after the work it holds, if any. Later ``tryRun(_:)`` calls return false.
    func stop() {
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
                    return (work, .busy)
                }
                if stopRequested {
                    state = .stopped
                    return (nil, .stopped)
                }
                // `tryRun` hands work over only in these two states; when it does, it sets `busy`.
                state = ContinuousClock.now < spinUntil ? .spinning : .sleeping
                return (nil, state)
            }
            switch next {
            case .busy:
                work?()
                lock.withLock { state = .spinning }
                spinUntil = ContinuousClock.now + spinWindow
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
