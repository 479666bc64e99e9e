import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

/// The helpers every other suite waits with end: a child that writes a lot to stderr, or never exits, and a
/// condition that never holds, fail the test instead of hanging it.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct TestSupportTests {
    @Test func aChildFillingStderrBeforeWritingStdoutIsReadInFull() throws {
        // 1 MB on stderr first: far more than a pipe holds, so reading stdout to its end first would deadlock.
        let child = try RunningProcess(
            executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 1000000 /dev/zero | tr '\\0' e >&2; echo done"])
        let result = child.wait(timeout: 60)
        #expect(!result.timedOut && result.status == 0)
        #expect(result.stdout == "done\n")
        #expect(result.stderr.utf8.count == 1_000_000)
    }

    @Test func aChildPastItsTimeLimitIsKilledAndSaysSo() throws {
        let started = Date()
        let result = try RunningProcess(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "echo started; exec sleep 60"])
            .wait(timeout: 1)
        #expect(result.timedOut && result.signaled && result.status == SIGKILL)
        #expect(result.stdout == "started\n")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test func aConditionThatNeverHoldsThrowsTimedOut() throws {
        let error = #expect(throws: TimedOut.self) { try waitUntil(timeout: 0.1, "nothing") { false } }
        #expect(error?.what == "nothing")
        #expect(throws: TimedOut.self) { try DispatchSemaphore(value: 0).waitForSignal(timeout: 0.1) }
        #expect(throws: TimedOut.self) { try finishing("a blocked thread", timeout: 0.1) { Thread.sleep(forTimeInterval: 2) } }
    }

    @Test func aTaskThatNeverEndsThrowsTimedOutAndIsCancelled() async throws {
        let endless = Task {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        }
        await #expect(throws: TimedOut.self) { try await value(of: endless, timeout: 0.1) }
        #expect(endless.isCancelled)
    }
}
