import Foundation
import Synchronization

/// A task executor with one thread of its own, which runs the jobs of the tasks that prefer it, in order. For work that
/// may block its thread and so must not hold one of the few threads of Swift's concurrency pool or of Dispatch's
/// shared pool, which other work needs: a server change feed's task (its publication calls listeners, which may
/// block: a handler, a value read again), and each test of the test suites. Between jobs the thread waits on a
/// condition. After ``finish()`` the thread ends once idle; a job that comes later (a task that outlived its owner)
/// starts a thread again, so that no job is ever dropped.
package final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []  // guarded by condition
    private var isFinished = false  // guarded by condition
    private var isThreadRunning = true  // guarded by condition
    private let name: String
    /// The thread's `pthread_self()`, once it runs (0 before).
    private let threadID = Atomic<UInt>(0)

    /// Whether the caller runs on the executor's thread.
    package var isCurrentThread: Bool {
        threadID.load(ordering: .relaxed) == ThreadIdentity.current
    }

    /// Whether the executor has a thread now (it ends a second after ``finish()`` once idle).
    package var hasThread: Bool { condition.withLock { isThreadRunning } }

    /// Starts the executor's thread, named `name`.
    package init(name: String) {
        self.name = name
        startThread()
    }

    private func startThread() {
        let thread = Thread { [self] in
            threadID.store(ThreadIdentity.current, ordering: .relaxed)
            Thread.current.name = name  // on Linux, only a thread's own call names it for the system (gdb, ps)
            runJobs()
        }
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Queues `job` for the thread.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let mustStart = condition.withLock {
            jobs.append(job)
            condition.signal()
            defer { isThreadRunning = true }
            return !isThreadRunning
        }
        if mustStart { startThread() }
    }

    /// Lets the thread end once no job has come for a second (jobs of tasks still ending run first).
    package func finish() {
        condition.withLock {
            isFinished = true
            condition.signal()
        }
    }

    private func runJobs() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func nextJob() -> UnownedJob? {
        condition.withLock {
            while jobs.isEmpty {
                if isFinished {
                    if !condition.wait(until: Date().addingTimeInterval(1)), jobs.isEmpty {
                        isThreadRunning = false
                        return nil
                    }
                } else {
                    condition.wait()
                }
            }
            return jobs.removeFirst()
        }
    }
}
