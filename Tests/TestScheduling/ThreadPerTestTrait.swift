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
package struct ThreadPerTestTrait: SuiteTrait, TestTrait, TestScoping {
    /// The tests running under the trait now.
    private static let running = Atomic<Int>(0)

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
        if TestThread.executor != nil { return try await function() }
        let running = Self.running.add(1, ordering: .relaxed).newValue
        defer { Self.running.subtract(1, ordering: .relaxed) }
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
}

extension Trait where Self == ThreadPerTestTrait {
    /// Each test of the suite on a thread of its own (``ThreadPerTestTrait``).
    package static var threadPerTest: Self { Self() }
}

/// The thread of the test running now.
package enum TestThread {
    /// The executor of the test's thread, nil outside a test marked ``ThreadPerTestTrait``. A test starts a task on
    /// it with `Task(executorPreference: TestThread.executor)`.
    @TaskLocal package static var executor: ThreadTaskExecutor?
}
