#if PostgreSQL
import Dispatch

/// Runs a task's jobs on a global dispatch queue's threads rather than on Swift's concurrency pool: the change feed
/// runs there, so that callers blocking the pool's few threads (the synchronous API, waiting for an event) cannot
/// keep it from delivering the event they wait for. It holds no thread of its own between jobs.
package final class DispatchTaskExecutor: TaskExecutor {
    /// The executor the change feeds run on (and the tests that must not wait for Swift's pool).
    package static let shared = DispatchTaskExecutor()

    private let queue = DispatchQueue.global(qos: .userInitiated)

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
