import Foundation
import SSEWire
import Synchronization

/// What one SSE client of the load test received.
struct LoadClientRecord {
    /// The socket.
    let descriptor: Int32
    /// Decodes the response as it arrives.
    var decoder = SSEStreamDecoder()
    /// The last commit sequence received (starts at the resume point).
    var lastSequence: Int64
    /// Commit frames received, with an `id:`.
    var received = 0
    /// Commit → receive latencies in nanoseconds, of the commits `sse-load write` made.
    var latencies: [UInt64] = []
    /// What went wrong: a gap, a doubled or out-of-order event, a resync, a bad status, a closed stream.
    var problems: [String] = []
    /// Whether the stream ended (closed by the server or failed).
    var ended = false
}

/// A share of the load test's clients read by one thread with `poll`: one wake-up serves every client whose
/// event has arrived, so the tool does not need one thread per client (500 threads would compete with the server
/// for the machine's cores).
final class LoadClientGroup: @unchecked Sendable {
    // @unchecked: `clients` is used by the group's thread only while it runs, and read by others after `finished`.
    private var clients: [LoadClientRecord]
    /// The sequence every client must reach before the group stops (Int64.max until the writers are done).
    let target = Atomic<Int64>(Int64.max)
    /// Set to stop reading whatever was received.
    let stop = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// A group reading `descriptors`, each resumed after `sequence`.
    init(descriptors: [Int32], resumedAfter sequence: Int64) {
        clients = descriptors.map { LoadClientRecord(descriptor: $0, lastSequence: sequence) }
    }

    /// Starts the group's thread.
    func start() {
        Thread { [self] in
            readUntilDone()
            done.signal()
        }.start()
    }

    /// Waits at most `seconds` for the thread to end; then the records (read only after the thread ended or was told to stop).
    func finish(within seconds: Double) -> [LoadClientRecord] {
        if done.wait(timeout: .now() + seconds) == .timedOut {
            stop.store(true, ordering: .relaxed)
            _ = done.wait(timeout: .now() + 5)
        }
        return clients
    }

    /// How many clients have received their response head (status 200 expected).
    var headsReceived: Int { headCount.load(ordering: .relaxed) }
    private let headCount = Atomic<Int>(0)

    private func readUntilDone() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var polled = clients.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        while !stop.load(ordering: .relaxed) {
            let target = self.target.load(ordering: .relaxed)
            if clients.allSatisfy({ $0.ended || $0.lastSequence >= target }) { return }
            let ready = poll(&polled, nfds_t(polled.count), 100)
            guard ready > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(polled[index].fd, $0.baseAddress, $0.count) }
                // After the read: a commit made while the other sockets were read can be in these bytes.
                let now = SSEConnection.now()
                guard count > 0 else {
                    clients[index].ended = true
                    clients[index].problems.append(count == 0 ? "the server closed the stream" : "read failed: errno \(errno)")
                    polled[index].fd = -1
                    continue
                }
                accept(buffer[0..<count], at: now, client: index)
            }
        }
    }

    private func accept(_ bytes: ArraySlice<UInt8>, at now: UInt64, client index: Int) {
        let hadHead = clients[index].decoder.status != nil
        let frames: [SSEFrame]
        do {
            frames = try clients[index].decoder.feed(bytes, at: now)
        } catch {
            clients[index].problems.append("\(error)")
            clients[index].ended = true
            return
        }
        if !hadHead, let status = clients[index].decoder.status {
            headCount.add(1, ordering: .relaxed)
            if status != 200 { clients[index].problems.append("status \(status)") }
        }
        for frame in frames where frame.isEvent {
            record(frame, client: index)
        }
    }

    private func record(_ frame: SSEFrame, client index: Int) {
        guard frame.event == "commit" else {
            clients[index].problems.append("event \(frame.event ?? "message") \(frame.data)")
            if let sequence = frame.sequence { clients[index].lastSequence = sequence }
            return
        }
        guard let sequence = frame.sequence else { return }  // a piece before a commit's last
        let last = clients[index].lastSequence
        if sequence != last + 1 {
            let what = sequence <= last ? "doubled or out of order" : "gap"
            clients[index].problems.append("\(what): \(sequence) after \(last)")
        }
        clients[index].lastSequence = max(last, sequence)
        clients[index].received += 1
        if let sent = LoadOrigin.timestamp(in: frame.data), frame.receivedAt > sent {
            clients[index].latencies.append(frame.receivedAt - sent)
        }
    }
}
