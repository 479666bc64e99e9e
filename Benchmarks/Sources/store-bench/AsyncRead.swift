import Dispatch
import Synchronization

/// async_read: `asyncReads` fetches by key, made from tasks of a task group that keeps `asyncReadConcurrency`
/// of them in flight, against the same fetches made one after the other synchronously (async_read_sync).
extension Workload {
    /// How many fetches each of the two cases makes.
    static let asyncReads = 10_000
    /// How many async fetches are in flight at once.
    static let asyncReadConcurrency = 64
    /// Rows in the table the fetches read.
    static let asyncReadRows = 10_000

    /// The keys of the fetches: ids of the filled table, from a fixed seed, the same for every contender.
    static func asyncReadIDs() -> [Int64] {
        var generator = SplitMix(seed: 7)
        return (0..<asyncReads).map { _ in Int64(generator.next() % UInt64(asyncReadRows)) + 1 }
    }

    /// Makes one async fetch per id with `fetch`, `asyncReadConcurrency` in flight at once; the sum of their x.
    static func fetchConcurrently(
        _ ids: [Int64], _ fetch: @escaping @Sendable (Int64) async throws -> Double
    ) async throws -> Double {
        try await withThrowingTaskGroup(of: Double.self) { group in
            var next = 0
            var total = 0.0
            while next < min(asyncReadConcurrency, ids.count) {
                let id = ids[next]
                group.addTask { try await fetch(id) }
                next += 1
            }
            while let x = try await group.next() {
                total += x
                if next < ids.count {
                    let id = ids[next]
                    group.addTask { try await fetch(id) }
                    next += 1
                }
            }
            return total
        }
    }
}

/// Runs `body` in a task and blocks the calling thread (the worker's main thread, not one of the cooperative
/// pool) until it ends; its value or error.
func waitForTask<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}
