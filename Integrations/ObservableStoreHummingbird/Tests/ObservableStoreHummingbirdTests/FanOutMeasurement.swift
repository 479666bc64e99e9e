import Foundation
import ObservableStore
import ObservableStoreHummingbird
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Commit → event latency at 1, 100 and 500 clients, printed, not asserted (speed is measured, never a unit test's
/// verdict). Runs only with `SSE_FANOUT_CLIENTS` set, a list of client counts:
/// `SSE_FANOUT_CLIENTS=1,100,500 swift test -c release --filter FanOutMeasurement` (`SSE_FANOUT_INTERVAL_MS`: the
/// time between two commits, 5 by default).
@Suite(.timeLimit(.minutes(10)))  // up to 500 sockets and 3 × 300 commits: a measurement, not a unit test
struct FanOutMeasurement {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SSE_FANOUT_CLIENTS"] != nil))
    func commitToEventLatency() async throws {
        let counts = (ProcessInfo.processInfo.environment["SSE_FANOUT_CLIENTS"] ?? "").split(separator: ",").compactMap { Int($0) }
        for count in counts {
            let line = try await StreamHarness.run { harness in try await measure(clients: count, harness: harness) }
            print(line)
        }
    }

    private var interval: Int { Int(ProcessInfo.processInfo.environment["SSE_FANOUT_INTERVAL_MS"] ?? "") ?? 5 }

    private func measure(clients count: Int, harness: StreamHarness<SQLiteStore>, commits: Int = 300) async throws -> String {
        let start = try harness.store.lastSequence()
        let sockets = try (0..<count).map { _ in try RawSocket(port: harness.port, lastEventID: start) }
        try await harness.waitForClients(count, timeout: .seconds(60))
        let arrivals = ArrivalLog(sockets: sockets)
        let reader = Thread { arrivals.readUntil(sequence: start + Int64(commits)) }
        reader.start()
        var committedAt: [Int64: ContinuousClock.Instant] = [:]
        for index in 1...commits {
            let before = ContinuousClock.now
            committedAt[try harness.insertNode("m\(index)")] = before
            try await Task.sleep(for: .milliseconds(interval))
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !arrivals.isDone, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        arrivals.stop()
        let latencies = arrivals.all.compactMap { sequence, instant in committedAt[sequence].map { (instant - $0) / .microseconds(1) } }.sorted()
        func percentile(_ p: Double) -> String {
            latencies.isEmpty ? "-" : String(format: "%.2f ms", latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] / 1000)
        }
        return "SSE fan-out, \(count) clients, \(commits) commits \(interval) ms apart: \(latencies.count) of \(count * commits) events, "
            + "p50 \(percentile(0.5)), p99 \(percentile(0.99)), max \(percentile(1))"
    }
}

/// A connected `GET /events` socket.
private struct RawSocket {
    let descriptor: Int32

    init(port: Int, lastEventID: Int64) throws {
        descriptor = try SSEClient.openSocket(
            port: port, request: "GET /events HTTP/1.1\r\nHost: localhost\r\nLast-Event-ID: \(lastEventID)\r\n\r\n")
    }
}

/// One thread polls every socket and notes when each `id:` line arrives.
private final class ArrivalLog: @unchecked Sendable {  // @unchecked: `arrivals` and `stopped` are guarded by `lock`
    private let sockets: [RawSocket]
    private let lock = NSLock()
    private var arrivals: [(Int64, ContinuousClock.Instant)] = []
    private var complete = 0
    private var stopped = false

    init(sockets: [RawSocket]) { self.sockets = sockets }

    var isDone: Bool { lock.withLock { complete == sockets.count } }
    var all: [(Int64, ContinuousClock.Instant)] { lock.withLock { arrivals } }
    func stop() { lock.withLock { stopped = true } }

    func readUntil(sequence last: Int64) {
        var polls = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        var pending = [[UInt8]](repeating: [], count: sockets.count)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !lock.withLock({ stopped }) {
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            for index in polls.indices where polls[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(polls[index].fd, $0.baseAddress, $0.count, 0) }
                let now = ContinuousClock.now
                guard count > 0 else {
                    polls[index].fd = -1
                    continue
                }
                pending[index] += buffer[0..<count]
                guard let lastNewline = pending[index].lastIndex(of: 10) else { continue }
                var found: [Int64] = []
                for line in pending[index][...lastNewline].split(separator: 10) where line.starts(with: Array("id: ".utf8)) {
                    if let sequence = Int64(String(decoding: line.dropFirst(4), as: UTF8.self)) { found.append(sequence) }
                }
                pending[index].removeFirst(lastNewline + 1)
                lock.withLock {
                    for sequence in found {
                        arrivals.append((sequence, now))
                        if sequence == last { complete += 1 }
                    }
                }
            }
        }
        for socket in sockets { close(socket.descriptor) }
    }
}
