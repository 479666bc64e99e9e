import Foundation
import Synchronization
import ObservableStoreCore
import TestScheduling
import Testing

/// A ``ThreadTaskExecutor`` runs every job of the tasks that prefer it on its thread, also a job that comes after
/// ``ThreadTaskExecutor/finish()`` let its thread end: the thread starts again, and no job is dropped.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ThreadTaskExecutorTests {
    /// Polls `condition` every 10 ms for at most `seconds`; whether it came to hold.
    private func eventually(seconds: Double = 30, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    @Test func aTaskRunsOnTheExecutorsThread() async {
        let executor = ThreadTaskExecutor(name: "executor-test")
        defer { executor.finish() }
        let onItsThread = await Task(executorPreference: executor) { executor.isCurrentThread }.value
        #expect(onItsThread)
        #expect(!executor.isCurrentThread)
    }

    @Test func aJobAfterTheThreadEndedStartsItAgain() async throws {
        let executor = ThreadTaskExecutor(name: "executor-test")
        executor.finish()
        #expect(try await eventually { !executor.hasThread }, "the thread did not end after finish()")
        let late = Task(executorPreference: executor) { executor.isCurrentThread }
        let ran = Mutex<Bool?>(nil)
        let watcher = Task { let value = await late.value; ran.withLock { $0 = value } }
        defer { watcher.cancel() }
        #expect(try await eventually { ran.withLock { $0 } != nil }, "the late task never ran")
        #expect(ran.withLock { $0 } == true, "the late task did not run on the executor's thread")
        executor.finish()
    }
}
