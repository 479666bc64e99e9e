import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// The `async` reads and writes suspend their callers instead of blocking threads: thousands of them at once
/// a call cancelled before it started never runs, and closing the store fails the calls still queued. (Thousands of
/// calls at once: ``AsyncLoadTests``.)
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct AsyncAccessTests {
    /// The message of the error a call of a closed store throws. Compared outside `#expect`: in a loop of these
    /// async tests, `#expect(message == "the store is closed")` saw its right-hand side as another string of the
    /// loop's body (a `value(of:)` description) and failed with equal strings (Swift 6.3.1, debug build).
    static let closedMessage = "the store is closed"
    /// How long a holding call waits for the test to release it: longer than any wait of the test (a holder that
    /// gave up early would let the queued calls run at once, and the test would wait in vain for them to queue), and
    /// below the suite's time limit, so a failing test still ends.
    static let holdSeconds: Double = 150

    /// `body`'s value or error.
    private func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// An async read of `store` (one reader connection) that holds its connection until `release` is signalled;
    /// returns once it runs. Its value is the number of nodes.
    private func holdingRead(of store: SQLiteStore) async throws -> (read: Task<Result<Int, any Error>, Never>, release: DispatchSemaphore) {
        let started = Locked(0)
        let release = DispatchSemaphore(value: 0)
        let running = outcome {
            try await store.read { tx in
                started.withLock { $0 += 1 }
                release.wait(seconds: Self.holdSeconds)
                return try tx.count(RecordQuery<NodeVO>())
            }
        }
        try await eventually("the first read to start") { started.value == 1 }
        return (running, release)
    }

    /// A synchronous write on its own thread that holds the writer until `release` is signalled, then inserts a
    /// node named "holder"; returns once it runs.
    private func holdingWrite(of store: SQLiteStore) async throws -> (write: ThreadJob<Result<Void, any Error>>, release: DispatchSemaphore) {
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

    /// Runs `body` in a task of its own; the task's value is `body`'s outcome, for ``result(of:_:sourceLocation:)``.
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
        var configuration = SQLiteStoreConfiguration()
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
            #expect(try await store.read { try $0.count(RecordQuery<NodeVO>()) } == 1)
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

            let names = try await store.read { tx in try tx.fetchAll(RecordQuery<NodeVO>()).map(\.name) }
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
        var configuration = SQLiteStoreConfiguration()
        configuration.maximumReaderCount = 1
        try await withTemporaryStore(configuration: configuration) { store, _ in
            try await store.write { tx in try tx.insert(NodeVO(name: "n", x: 0, y: 0)) }
            let (running, release) = try await holdingRead(of: store)
            let queued = (0..<3).map { _ in outcome { try await store.read { try $0.count(RecordQuery<NodeVO>()) } } }
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
            let after = await attempt { try await store.read { try $0.count(RecordQuery<NodeVO>()) } }
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

            let reopened = try SQLiteStore(path: path)
            defer { reopened.close() }
            #expect(try await reopened.read { tx in try tx.fetchAll(RecordQuery<NodeVO>()).map(\.name) } == ["holder"])
        }
    }

    @Test func anInMemoryStoreReadsAsynchronouslyOnItsWriterInTurnWithTheWrites() async throws {
        let store = try SQLiteStore(path: ":memory:")
        defer { store.close() }
        let calls = Task {
            await withTaskGroup(of: String?.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do {
                            if index.isMultiple(of: 2) {
                                try await store.write { tx in try tx.insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
                            } else {
                                _ = try await store.read { tx in try tx.count(RecordQuery<NodeVO>()) }
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
        #expect(try await store.read { try $0.count(RecordQuery<NodeVO>()) } == 100)
    }
}
