import Foundation
import ObservableStoreCore
import TestRunWidth
import TestScheduling
import Testing

/// The test run's scheduling is in effect: a test, synchronous or not, runs on the thread the trait gave it (not on
/// the concurrency pool), its child tasks too, and Swift Testing was given a width.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ThreadPerTestTraitTests {
    /// Whether the caller runs on the test's thread; else, the name of the thread it runs on.
    private static func onTheTestsThread() -> String? {
        TestThread.executor?.isCurrentThread == true ? nil : (Thread.current.name ?? "a thread without a name")
    }

    @Test func aSynchronousTestRunsOnItsOwnThread() {
        #expect(TestThread.executor != nil)
        #expect(Self.onTheTestsThread() == nil)
    }

    @Test func anAsyncTestAndItsChildTasksRunOnItsThread() async {
        #expect(TestThread.executor != nil)
        #expect(Self.onTheTestsThread() == nil)
        async let child = Self.onTheTestsThread()
        #expect(await child == nil)
    }

    @Test func swiftTestingWasGivenAWidth() {
        let width = Int(observable_store_test_run_width())
        #expect(width >= 2)
        #expect(ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"] == String(width))
    }
}

/// A test marked to run alone runs with no other test beside it, from its start to its end, even while the run has
/// other tests waiting (a full run).
@Suite(.timeLimit(.minutes(10)), .threadPerTest(alone: true)) struct ThreadPerTestAloneTests {
    @Test func noOtherTestRunsBesideIt() async throws {
        #expect(TestThread.executor?.isCurrentThread == true)
        for _ in 0..<50 {
            #expect(ThreadPerTestTrait.runningNow == 1)
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
