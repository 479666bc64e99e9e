import Foundation
import ObservableStoreCore
import TestRunWidth
import TestScheduling
import Testing

/// The test run's scheduling is in effect: a test, synchronous or not, runs on the thread the trait gave it (not on
/// the concurrency pool), its child tasks too, and Swift Testing was given a width.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ThreadPerTestTraitTests {
    /// The name of the calling thread (the trait's threads are named "test").
    private static func threadName() -> String? { Thread.current.name }

    @Test func aSynchronousTestRunsOnItsOwnThread() {
        #expect(TestThread.executor != nil)
        #expect(Self.threadName() == "test")
    }

    @Test func anAsyncTestAndItsChildTasksRunOnItsThread() async {
        #expect(TestThread.executor != nil)
        #expect(Self.threadName() == "test")
        async let child = Self.threadName()
        #expect(await child == "test")
    }

    @Test func swiftTestingWasGivenAWidth() {
        let width = Int(observable_store_test_run_width())
        #expect(width >= 2)
        #expect(ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"] == String(width))
    }
}
