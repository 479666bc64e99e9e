import ObservableStoreCore
import Synchronization
import TestRunWidth
import Testing

/// Runs each test of the suite it marks on a thread of its own (a ``ThreadTaskExecutor`` the test's task prefers),
/// not on Swift's concurrency pool: `@Suite(.timeLimit(.minutes(10)), .threadPerTest)`.
///
/// Most tests are synchronous and block while they wait: for a child process, a commit, a lock. Swift Testing runs a
/// synchronous test on a thread of the concurrency pool, which has one thread per core; on a 2-core machine two such
/// tests hold the whole pool, and every async test and every task a test starts waits for them, its time limit
/// running meanwhile (minutes, in a full run). On a thread of its own, a test that blocks holds only that thread, and
/// the pool stays free for the async work. An async test's own code runs on its thread too (and so do its child
/// tasks); tasks it starts with `Task { }` run on the pool.
///
/// How many tests run at once is Swift Testing's to bound, before a test's time limit starts:
/// `SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH`, which `test_run_width.c` sets when the test process starts
/// (twice the cores). A test run with more tests at once than that records an issue, so that a change of the variable
/// (it is experimental) does not silently start every test at once.
///
/// A test that measures the whole process (its thread count, say) runs alone: `.threadPerTest(alone: true)`. It waits
/// until the tests running beside it end, and no other test starts until it ends. Those waits count in the tests' time
/// limits (they happen inside the test's scope), so every suite keeps a limit well above its longest test plus the
/// longest test of the run: 10 minutes.
package struct ThreadPerTestTrait: SuiteTrait, TestTrait, TestScoping {
    /// Whether each test runs with no other test of the run beside it.
    package var runsAlone = false

    /// The tests under the trait that run now, and those that wait to run alone.
    private struct Occupancy {
        /// Tests running beside others.
        var sharing = 0
        /// Whether a test runs alone now.
        var aloneRunning = false
        /// Tests waiting to run alone; while there are any, no other test starts.
        var aloneWaiting = 0
    }

    private static let occupancy = Mutex(Occupancy())

    /// How many tests under the trait run now.
    package static var runningNow: Int {
        occupancy.withLock { $0.sharing + ($0.aloneRunning ? 1 : 0) }
    }

    /// Every test in the suite, and in the suites nested in it.
    package var isRecursive: Bool { true }

    /// A scope for each test case; none for a suite as a whole.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    /// Runs `function` on a new thread, unless it runs on one already (a suite nested in a marked one).
    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if TestThread.executor != nil {
            if runsAlone {
                Issue.record("threadPerTest(alone: true) inside a suite marked .threadPerTest: mark the suite instead")
            }
            return try await function()
        }
        let running = try await enter()
        defer { leave() }
        let width = Int(observable_store_test_run_width())
        if width == 0 || running > width {
            let message =
                "\(running) tests run at once, more than the width \(width) that test_run_width.c sets through "
                + "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH: does this Swift Testing still read that variable?"
            Issue.record(Comment(rawValue: message))
        }
        let executor = ThreadTaskExecutor(name: "test")
        defer { executor.finish() }
        try await TestThread.$executor.withValue(executor) {
            try await withTaskExecutorPreference(executor) {
                // A suspension, so that the test's first job (a synchronous test's only one) is enqueued, and so runs
                // on the preferred thread, rather than going on on the thread that ran this scope.
                await Task.yield()
                if !executor.isCurrentThread {
                    Issue.record("the test did not move to a thread of its own: it would run on the concurrency pool")
                }
                try await function()
            }
        }
    }

    /// Waits for the test's turn: for a test that runs alone, until no other test runs; for any other, until no test
    /// runs or waits to run alone. Returns how many tests run now, this one included. Throws if the test is cancelled
    /// (its time limit) while it waits.
    private func enter() async throws -> Int {
        if runsAlone { Self.occupancy.withLock { $0.aloneWaiting += 1 } }
        while true {
            let running: Int? = Self.occupancy.withLock { occupancy in
                if runsAlone {
                    guard occupancy.sharing == 0, !occupancy.aloneRunning else { return nil }
                    occupancy.aloneWaiting -= 1
                    occupancy.aloneRunning = true
                    return 1
                }
                guard !occupancy.aloneRunning, occupancy.aloneWaiting == 0 else { return nil }
                occupancy.sharing += 1
                return occupancy.sharing
            }
            if let running { return running }
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                if runsAlone { Self.occupancy.withLock { $0.aloneWaiting -= 1 } }
                throw error
            }
        }
    }

    /// Ends the test's turn.
    private func leave() {
        Self.occupancy.withLock { occupancy in
            if runsAlone { occupancy.aloneRunning = false } else { occupancy.sharing -= 1 }
        }
    }
}

extension Trait where Self == ThreadPerTestTrait {
    /// Each test of the suite on a thread of its own (``ThreadPerTestTrait``).
    package static var threadPerTest: Self { Self() }

    /// Each test of the suite on a thread of its own; with `alone`, each runs with no other test beside it.
    package static func threadPerTest(alone: Bool) -> Self { Self(runsAlone: alone) }
}

/// The thread of the test running now.
package enum TestThread {
    /// The executor of the test's thread, nil outside a test marked ``ThreadPerTestTrait``. A test starts a task on
    /// it with `Task(executorPreference: TestThread.executor)`.
    @TaskLocal package static var executor: ThreadTaskExecutor?
}
