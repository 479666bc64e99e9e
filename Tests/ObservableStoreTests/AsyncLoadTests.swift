import Dispatch
import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Thousands of `async` reads and writes at once finish with the right results on a 2-core machine, the cooperative
/// pool stays free, and the process does not grow a thread per waiting caller. The test counts the process's threads,
/// so it runs alone: threads that tests beside it start would count too (once +29 in a full run, against +0 alone).
@Suite(.timeLimit(.minutes(10)), .threadPerTest(alone: true)) struct AsyncLoadTests {
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
                release.wait(seconds: AsyncAccessTests.holdSeconds)
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
                try tx.fetchAll(RecordQuery<NodeVO>().filter("x", .equal, 1)).map(\.name)
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
}
