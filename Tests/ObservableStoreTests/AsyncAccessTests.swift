import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Polls `condition` every millisecond, at most `polls` times; throws ``TimedOut`` naming `what` when it still does
/// not hold. Counted in polls rather than wall-clock time, so that a loaded machine, on which a poll runs late, does
/// not shorten the wait. The suite's time limit still ends a test that never progresses.
private func eventually(
    _ what: String, polls: Int = 20_000, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    var left = polls
    while !condition() {
        left -= 1
        guard left > 0 else { throw TimedOut(what, seconds: Double(polls) / 1_000, sourceLocation: sourceLocation) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// `task`'s value, waited for with ``eventually(_:polls:sourceLocation:_:)``; the task is cancelled if it does not end.
private func result<Value: Sendable>(
    of task: Task<Value, Never>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Value {
    let value = Locked<Value?>(nil)
    let watcher = Task { value.value = await task.value }
    do {
        try await eventually(what, sourceLocation: sourceLocation) { value.value != nil }
    } catch {
        task.cancel()
        watcher.cancel()
        throw error
    }
    return value.value!
}

/// The `async` reads and writes suspend their callers instead of blocking threads: thousands of them at once
/// finish with the right results on a 2-core machine, the cooperative pool stays free, the process does not
/// grow a thread per waiting caller; a call cancelled before it started never runs, and closing the store
/// fails the calls still queued.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct AsyncAccessTests {
    /// The message of the error a call of a closed store throws. Compared outside `#expect`: in a loop of these
    /// async tests, `#expect(message == "the store is closed")` saw its right-hand side as another string of the
    /// loop's body (a `value(of:)` description) and failed with equal strings (Swift 6.3.1, debug build).
    static let closedMessage = "the store is closed"
    /// How long a holding call waits for the test to release it: longer than any wait of the test (a holder that
    /// gave up early would let the queued calls run at once, and the test would wait in vain for them to queue), and
    /// below the suite's time limit, so a failing test still ends.
    static let holdSeconds: Double = 150
    /// Rows in the table the reads fetch from.
    static let storedNodes = 2_000

    /// How many threads the process has now (`/proc/self/task`).
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    @Test func thousandsOfAsyncReadsAndWritesFinishWithoutBlockingTheCooperativePoolOrAddingThreads() async throws {
        try await withTemporaryStore { store, _ in
            let names = (0..<Self.storedNodes).map { "node \($0)" }
            let stored = try await store.write { tx in try names.map { try tx.insert(NodeVO(name: $0, x: 0, y: 0)) } }
            let keys = stored.map { $0.id! }
            // Every reader connection and the writer are held by synchronous calls on threads of their own while
            // the async calls start, so that they all wait for a while: that is when a waiting caller could hold a
            // thread.
            let release = DispatchSemaphore(value: 0)
            let holding = Locked(0)
            @Sendable func hold() {
                holding.withLock { $0 += 1 }
                release.wait(seconds: Self.holdSeconds)
            }
            let holders = (0..<store.configuration.maximumReaderCount).map { _ in
                ThreadJob { Result { try store.read { _ in hold() } } }
            } + [ThreadJob { Result { try store.write { _ in hold() } } }]
            try await eventually("calls to hold every connection") { holding.value == holders.count }
            let threadsBefore = Self.threadCount()

            // The probe: a task of the cooperative pool that sleeps 1 ms in a loop, noting its worst lateness. The
            // sampler, a thread of its own (it runs even when the pool does not), notes the most threads the process
            // had and the most callers that waited on a thread of their own for a reader.
            let probing = Locked(true)
            let worstLateness = Locked(Duration.zero)
            let probe = Task {
                while probing.value {
                    let start = ContinuousClock.now
                    try? await Task.sleep(for: .milliseconds(1))
                    let late = ContinuousClock.now - start - .milliseconds(1)
                    worstLateness.withLock { $0 = max($0, late) }
                }
            }
            let sampler = ThreadJob { () -> (threads: Int, parkedReaders: Int) in
                var most = (threads: threadsBefore, parkedReaders: 0)
                while probing.value {
                    most.threads = max(most.threads, Self.threadCount())
                    most.parkedReaders = max(most.parkedReaders, store.readers.waitingCount)
                    usleep(1_000)
                }
                return most
            }

            let load = Task {
                await withTaskGroup(of: String?.self) { group in
                    for index in 0..<Self.storedNodes {
                        let key = keys[index]
                        group.addTask {
                            let name = try? await store.read { tx in try tx.fetch(NodeVO.self, key: key)?.name }
                            return name == names[index] ? nil : "read \(key) got \(String(describing: name))"
                        }
                    }
                    for index in 0..<500 {
                        group.addTask {
                            do {
                                let written = try await store.write { tx in
                                    try tx.insert(NodeVO(name: "new \(index)", x: 1, y: 1))
                                }
                                return written.id == nil ? "write \(index) got no key" : nil
                            } catch {
                                return "write \(index) failed: \(error)"
                            }
                        }
                    }
                    var failures: [String] = []
                    for await failure in group { if let failure { failures.append(failure) } }
                    return failures
                }
            }
            try await Task.sleep(for: .milliseconds(500))  // the calls wait, the probe measures
            for _ in holders { release.signal() }
            for holder in holders { _ = try await finished(holder, "a call holding a connection").get() }
            let outcome = try await result(of: load, "2,000 async reads and 500 async writes")
            probing.value = false
            _ = try await result(of: probe, "the probe to stop")
            let most = try await finished(sampler, "the sampler to stop")

            #expect(outcome.isEmpty, "\(outcome.prefix(5))")
            let newNames = try await store.read { tx in
                try tx.fetchAll(Query<NodeVO>().filter("x", .equal, 1)).map(\.name)
            }
            #expect(Set(newNames) == Set((0..<500).map { "new \($0)" }))
            let lateness = worstLateness.value
            let addedThreads = most.threads - threadsBefore
            let parkedReaders = most.parkedReaders
            print(
                "async load: the probe's worst lateness \(lateness); threads \(threadsBefore) before, +\(addedThreads) "
                    + "at most; at most \(parkedReaders) callers parked waiting for a reader")
            // Measured against the old implementation (each async read waited for a reader on a Dispatch thread of
            // its own): 42 callers parked, +35 to +40 threads (Dispatch's limit on this 2-core machine), and the
            // probe, like the test's own sleep, did not run again until the holders gave up after 40 s (lateness
            // 40.04 s): the parked threads had taken the cooperative pool's. All three expectations below failed. This implementation: +0 threads, no caller parked, lateness 24-34 ms
            // alone; the bound on lateness leaves room for a loaded machine and stays below the 40 s of the stall.
            #expect(parkedReaders == 0, "\(parkedReaders) callers waited for a reader on a thread of their own")
            #expect(addedThreads <= 24, "the process grew \(addedThreads) threads under the load")
            #expect(lateness < .seconds(30), "a 1 ms sleep of the cooperative pool was \(lateness) late")
        }
    }

    /// Waits for `job` without blocking the test's thread (its tasks run there too); its value. Throws ``TimedOut`` naming `what` after the default wait.
    private func finished<Value: Sendable>(_ job: ThreadJob<Value>, _ what: String) async throws -> Value {
        try await eventually(what) { job.wait(seconds: 0) != nil }
        return job.wait(seconds: 0)!
    }

    /// `body`'s value or error.
    private func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// Runs `body` in a task of its own; the task's value is `body`'s outcome, for ``result(of:_:sourceLocation:)``.
    /// An async read of `store` (one reader connection) that holds its connection until `release` is signalled;
    /// returns once it runs. Its value is the number of nodes.
    private func holdingRead(of store: Store) async throws -> (read: Task<Result<Int, any Error>, Never>, release: DispatchSemaphore) {
        let started = Locked(0)
        let release = DispatchSemaphore(value: 0)
        let running = outcome {
            try await store.read { tx in
                started.withLock { $0 += 1 }
                release.wait(seconds: Self.holdSeconds)
                return try tx.count(Query<NodeVO>())
            }
        }
        try await eventually("the first read to start") { started.value == 1 }
        return (running, release)
    }

    /// A synchronous write on its own thread that holds the writer until `release` is signalled, then inserts a
    /// node named "holder"; returns once it runs.
    private func holdingWrite(of store: Store) async throws -> (write: ThreadJob<Result<Void, any Error>>, release: DispatchSemaphore) {
        let release = DispatchSemaphore(value: 0)
        let entered = Locked(0)
        let holder = ThreadJob {
            Result {
                try store.write { tx in
                    entered.withLock { $0 += 1 }
                    release.wait(seconds: Self.holdSeconds)
                    try tx.insert(NodeVO(name: "holder", x: 0, y: 0))
                }
            }
        }
        try await eventually("the holding write to start") { entered.value == 1 }
        return (holder, release)
    }

    private func outcome<T: Sendable>(
        _ body: @escaping @Sendable () async throws -> T
    ) -> Task<Result<T, any Error>, Never> {
        Task { await attempt(body) }
    }

    /// The message of `result`'s `StoreError`, or a description of what it was instead.
    private func storeErrorMessage<T>(_ result: Result<T, any Error>) -> String {
        switch result {
        case .success(let value): "succeeded with \(value)"
        case .failure(let error as StoreError): error.code == .transactionMisuse ? error.message : "\(error)"
        case .failure(let error): "\(error)"
        }
    }

    @Test func aReadCancelledWhileQueuedEndsAtOnceWithoutRunningAndAStartedOneRunsToTheEnd() async throws {
        var configuration = StoreConfiguration()
        configuration.maximumReaderCount = 1
        try await withTemporaryStore(configuration: configuration) { store, _ in
            try await store.write { tx in try tx.insert(NodeVO(name: "n", x: 0, y: 0)) }
            let (running, release) = try await holdingRead(of: store)
            let bodiesRun = Locked(0)
            let queued = outcome { try await store.read { _ in bodiesRun.withLock { $0 += 1 } } }
            try await eventually("the second read to be queued behind the first") {
                store.readers.queuedCount == 1
            }

            queued.cancel()
            running.cancel()
            // Ends while the one reader is still busy with the first read: it did not wait for its turn.
            let cancelled = try await result(of: queued, "the cancelled read to end")
            #expect(throws: CancellationError.self) { try cancelled.get() }
            release.signal()
            let finished = try await result(of: running, "the started read to end")
            #expect(try finished.get() == 1)  // cancelled after it started: it ran to the end

            try await eventually("the reader to drain its queue") { store.readers.queuedCount == 0 }
            #expect(try await store.read { try $0.count(Query<NodeVO>()) } == 1)
            #expect(bodiesRun.value == 0)
        }
    }

    @Test func aWriteCancelledWhileWaitingForItsTurnWritesNothingAndAStartedOneCommits() async throws {
        try await withTemporaryStore(configuration: .withoutChangeFeed) { store, _ in
            let (holder, release) = try await holdingWrite(of: store)
            let waiting = outcome {
                try await store.write { tx in try tx.insert(NodeVO(name: "cancelled", x: 0, y: 0)) }
            }
            try await eventually("the async write to wait for its turn") {
                store.writer.waitingWrites == 1
            }
            waiting.cancel()
            // Ends while the writer is still held.
            let cancelled = try await result(of: waiting, "the cancelled write to end")
            #expect(throws: CancellationError.self) { try cancelled.get() }
            release.signal()
            _ = try await finished(holder, "the holding write").get()

            // A write cancelled once its body started still commits, and returns its value.
            let bodyStarted = Locked(0)
            let goOn = DispatchSemaphore(value: 0)
            let started = outcome {
                try await store.write { tx in
                    bodyStarted.withLock { $0 += 1 }
                    goOn.wait(seconds: Self.holdSeconds)
                    return try tx.insert(NodeVO(name: "started", x: 0, y: 0)).name
                }
            }
            try await eventually("the async write's body to start") { bodyStarted.value == 1 }
            started.cancel()
            goOn.signal()
            #expect(try await result(of: started, "the started write to end").get() == "started")

            let names = try await store.read { tx in try tx.fetchAll(Query<NodeVO>()).map(\.name) }
            #expect(names.sorted() == ["holder", "started"])
            #expect(try await store.write { tx in try tx.insert(NodeVO(name: "after", x: 0, y: 0)).name } == "after")
        }
    }

    @Test func aCallWhoseTaskWasCancelledBeforeItBeganNeverRuns() async throws {
        try await withTemporaryStore { store, _ in
            let bodiesRun = Locked(0)
            let task = outcome {
                withUnsafeCurrentTask { $0?.cancel() }
                let read = await attempt { try await store.read { _ in bodiesRun.withLock { $0 += 1 } } }
                let write = await attempt { try await store.write { _ in bodiesRun.withLock { $0 += 1 } } }
                return [read, write].map { result -> Bool in
                    if case .failure(let error) = result { return error is CancellationError }
                    return false
                }
            }
            let endedByCancellation = try await result(of: task, "calls of a cancelled task").get()
            #expect(endedByCancellation == [true, true])
            #expect(bodiesRun.value == 0)
        }
    }

    @Test func closingFailsTheReadsStillQueuedWhileTheRunningOneEnds() async throws {
        var configuration = StoreConfiguration()
        configuration.maximumReaderCount = 1
        try await withTemporaryStore(configuration: configuration) { store, _ in
            try await store.write { tx in try tx.insert(NodeVO(name: "n", x: 0, y: 0)) }
            let (running, release) = try await holdingRead(of: store)
            let queued = (0..<3).map { _ in outcome { try await store.read { try $0.count(Query<NodeVO>()) } } }
            try await eventually("three reads to be queued") { store.readers.queuedCount == 3 }

            store.close()
            for read in queued {
                // Ends while the reader is still held by the running read.
                let result = try await result(of: read, "a queued read of a closed store to end")
                let message = storeErrorMessage(result)
                let failedAsClosed = message == Self.closedMessage  // not inside #expect: see closedMessage
                #expect(failedAsClosed, "\(message)")
            }
            release.signal()
            #expect(try await result(of: running, "the running read to end").get() == 1)
            let after = await attempt { try await store.read { try $0.count(Query<NodeVO>()) } }
            #expect(storeErrorMessage(after) == Self.closedMessage)
        }
    }

    @Test func closingFailsTheWritesStillWaitingAfterTheOneInProgressCommits() async throws {
        try await withTemporaryStore(configuration: .withoutChangeFeed) { store, path in
            let (holder, release) = try await holdingWrite(of: store)
            let queued = (0..<3).map { index in
                outcome {
                    try await store.write { tx in try tx.insert(NodeVO(name: "queued \(index)", x: 0, y: 0)).name }
                }
            }
            try await eventually("three async writes to wait for their turn") {
                store.writer.waitingWrites == 3
            }

            let closing = ThreadJob { store.close() }  // waits for the write in progress
            try await eventually("the store to start closing") { store.writer.hasStartedClosing }
            release.signal()
            _ = try await finished(holder, "the holding write").get()
            for write in queued {
                let result = try await result(of: write, "a queued write of a closed store to end")
                let message = storeErrorMessage(result)
                let failedAsClosed = message == Self.closedMessage  // not inside #expect: see closedMessage
                #expect(failedAsClosed, "\(message)")
            }
            _ = try await finished(closing, "close")

            let reopened = try Store(path: path)
            defer { reopened.close() }
            #expect(try await reopened.read { tx in try tx.fetchAll(Query<NodeVO>()).map(\.name) } == ["holder"])
        }
    }

    @Test func anInMemoryStoreReadsAsynchronouslyOnItsWriterInTurnWithTheWrites() async throws {
        let store = try Store(path: ":memory:")
        defer { store.close() }
        let calls = Task {
            await withTaskGroup(of: String?.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do {
                            if index.isMultiple(of: 2) {
                                try await store.write { tx in try tx.insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
                            } else {
                                _ = try await store.read { tx in try tx.count(Query<NodeVO>()) }
                            }
                            return nil
                        } catch {
                            return "call \(index): \(error)"
                        }
                    }
                }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
        }
        let failures = try await result(of: calls, "async reads and writes of an in-memory store")
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(try await store.read { try $0.count(Query<NodeVO>()) } == 100)
    }
}
