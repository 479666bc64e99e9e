import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct DeliveryThreadTests {
    @Test(arguments: [Duration.zero, .microseconds(200)])
    func runsHandedWorkElsewhereAndRefusesWhileBusy(spinWindow: Duration) throws {
        let thread = DeliveryThread(spinWindow: spinWindow)
        defer { thread.stop() }
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        let ranElsewhere = Locked(false)
        #expect(thread.tryRun {
            ranElsewhere.value = pthread_equal(pthread_self(), caller) == 0
            started.signal()
            release.wait(seconds: helperWaitSeconds)
        })
        #expect(started.wait(timeout: .now() + 10) == .success)
        #expect(ranElsewhere.value)
        #expect(!thread.tryRun {})  // busy: the caller must run it elsewhere
        release.signal()
        // Free again once the work is done, whether it spins or sleeps by then.
        let second = DispatchSemaphore(value: 0)
        let deadline = ContinuousClock.now + .seconds(10)
        while !thread.tryRun({ second.signal() }) && ContinuousClock.now < deadline { usleep(100) }
        #expect(second.wait(timeout: .now() + 10) == .success)
    }

    @Test func stopsAndRefusesWorkAfterwards() throws {
        let thread = DeliveryThread(spinWindow: .microseconds(200))
        let ran = DispatchSemaphore(value: 0)
        #expect(thread.tryRun { ran.signal() })
        #expect(ran.wait(timeout: .now() + 10) == .success)
        thread.stop()
        #expect(!thread.tryRun {})
    }

    @Test func smallCommitsAreOfferedToTheDeliveryThreadAndFanOutsAreNot() throws {
        // Which drains are offered to the delivery thread is decided by the store; whether the thread is
        // free to take one depends on scheduling. The offers are counted; where the handler ran is checked
        // for the fan-out, which must never use the thread.
        try withTemporaryStore { store, _ in
            let thread = store.registry.context.thread
            let names = Recorder<String>()
            let one = store.listen("one") { _ in names.append(Thread.current.name ?? "") }
            // A small commit is offered here only when nothing waits on the store's dispatch queue; with the
            // whole test suite blocking global-queue threads, that queue can be slow to run. Let it drain
            // first, and allow a few commits.
            let drained = DispatchSemaphore(value: 0)
            store.publisher.afterPublished { drained.signal() }
            #expect(drained.wait(timeout: .now() + 60) == .success)
            let before = thread.offerCount
            for index in 1...20 where thread.offerCount == before {
                try store.repository(NodeVO.self).insert(NodeVO(name: "a\(index)", x: 0, y: 0))
                try waitUntil { names.all.count == index }
            }
            #expect(thread.offerCount > before)
            one.cancel()
            // 20 listeners: more than a commit is offered to on the writer's thread; the dispatch queue
            // fans out through the global queue, never the delivery thread.
            names.removeAll()
            let many = (0..<20).map { index in store.listen("view-\(index)") { _ in names.append(Thread.current.name ?? "") } }
            let beforeFanOut = thread.offerCount
            try store.repository(NodeVO.self).insert(NodeVO(name: "b", x: 0, y: 0))
            try waitUntil { names.all.count == 20 }
            #expect(thread.offerCount == beforeFanOut)
            #expect(!names.all.contains(DeliveryThread.threadName))
            withExtendedLifetime(many) {}
        }
    }

    @Test func sleepsAfterItsSpinWindow() throws {
        // After its spin window the thread sleeps: an idle store costs no CPU. Measured on the thread's own
        // CPU clock (other tests run in this process at the same time). Left spinning, it would use
        // about as much CPU time as wall time here.
        try withTemporaryStore { store, _ in
            let recorder = EventRecorder()
            let token = store.listen("idle") { recorder.record($0) }
            try store.repository(NodeVO.self).insert(NodeVO(name: "once", x: 0, y: 0))
            #expect(recorder.wait(for: 1))
            let clock = Locked(clockid_t(0))
            let found = DispatchSemaphore(value: 0)
            let deadline = ContinuousClock.now + .seconds(10)
            while !store.registry.context.thread.tryRun({
                pthread_getcpuclockid(pthread_self(), &clock.value)
                found.signal()
            }) && ContinuousClock.now < deadline { usleep(100) }
            #expect(found.wait(timeout: .now() + 10) == .success)
            usleep(50_000)  // lets time pass: past the spin window
            let before = cpuSeconds(clock.value)
            usleep(500_000)  // lets time pass: the idle interval measured
            let used = cpuSeconds(clock.value) - before
            #expect(used < 0.01, "delivery thread CPU seconds while idle: \(used)")
            withExtendedLifetime(token) {}
        }
    }

    @Test func stopsSpinningWhileAnotherThreadHasItsCPU() throws {
        // The delivery thread and a busy thread on one CPU: each yield of the spinning thread hands the busy
        // one a time slice, its turns come far apart, and it stops spinning (it would otherwise spin for
        // the whole 10 s window).
        let thread = DeliveryThread(spinWindow: .seconds(10))
        defer { thread.stop() }
        let cpu = try #require(firstAllowedCPU())
        let pinned = DispatchSemaphore(value: 0)
        let pinnedThere = Locked(false)
        #expect(thread.tryRun {
            pinnedThere.value = pin(to: cpu)
            pinned.signal()
        })
        #expect(pinned.wait(timeout: .now() + 10) == .success)
        #expect(pinnedThere.value)
        #expect(!thread.spinningIsPaused)
        // Watched from the busy thread while it runs: spinning pauses (for the policy's first pause, 5 ms)
        // once the delivery thread gets its CPU back after losing it for a time slice.
        let busyForAWhile = DispatchSemaphore(value: 0)
        let pausedWhileBusy = Locked(false)
        let busy = Thread {
            defer { busyForAWhile.signal() }
            guard pin(to: cpu) else { return }
            let start = ContinuousClock.now
            while ContinuousClock.now < start + .milliseconds(200) && !pausedWhileBusy.value {
                pausedWhileBusy.value = thread.spinningIsPaused
            }
        }
        busy.start()
        #expect(busyForAWhile.wait(timeout: .now() + 30) == .success)
        #expect(pausedWhileBusy.value)
    }

    private func cpuSeconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// `sched_getaffinity(2)` / `sched_setaffinity(2)`, which Swift's Glibc module leaves out (they need
/// `_GNU_SOURCE`), looked up in the C library.
private typealias AffinityCall = @convention(c) (pid_t, Int, UnsafeMutablePointer<cpu_set_t>) -> Int32

private func affinityCall(_ name: String) -> AffinityCall? {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
    return unsafeBitCast(symbol, to: AffinityCall.self)
}

/// The lowest-numbered CPU this process may run on.
private func firstAllowedCPU() -> Int? {
    var set = cpu_set_t()
    guard let getAffinity = affinityCall("sched_getaffinity"), getAffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0
    else { return nil }
    return withUnsafeBytes(of: &set) { bytes in
        for index in 0..<bytes.count * 8 where bytes[index / 8] & (1 << (index % 8)) != 0 { return index }
        return nil
    }
}

/// Pins the calling thread to `cpu`; false if that failed.
@discardableResult
private func pin(to cpu: Int) -> Bool {
    var set = cpu_set_t()
    withUnsafeMutableBytes(of: &set) { $0[cpu / 8] = 1 << (cpu % 8) }
    return affinityCall("sched_setaffinity")?(0, MemoryLayout<cpu_set_t>.size, &set) == 0
}
