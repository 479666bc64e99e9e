import CoreMetrics
import Synchronization

/// One client's bounded queue of frames: the stream's fan-out appends to it without waiting, and the client's
/// response writer takes everything queued at once, sleeping on a continuation while there is nothing (no task of
/// its own, no polling).
///
/// When `capacity` frames wait and another comes, the queue drops them all and remembers the newest sequence it
/// dropped: the writer then sends one resync frame at that position, so a slow client costs at most `capacity`
/// frames of memory and never blocks the writer or other clients.
final class ClientQueue: Sendable {
    /// What the writer takes: the position of a resync to send first, if frames were dropped, then frames in order.
    struct Batch {
        var overflowedAt: Int64?
        var frames: [EventFrame]
    }

    private struct State {
        var frames: [EventFrame] = []
        var overflowedAt: Int64?
        /// The last commit the client got from the replay: a frame at or below it (the stream's reader can lag
        /// behind the replay) is never queued again.
        var replayedThrough: Int64?
        var waiter: CheckedContinuation<Void, Never>?
        var finished = false

        var hasWork: Bool { !frames.isEmpty || overflowedAt != nil || finished }
    }

    let capacity: Int
    private let backlog: Meter
    private let state = Mutex(State())

    init(capacity: Int, backlog: Meter) {
        self.capacity = max(1, capacity)
        self.backlog = backlog
    }

    /// Queues `frame`; returns how the number of queued frames changed (+1, or minus the frames an overflow dropped),
    /// for the caller to add to the backlog gauge once for all clients.
    @discardableResult
    func push(_ frame: EventFrame) -> Int {
        let (change, waiter) = state.withLock { state -> (Int, CheckedContinuation<Void, Never>?) in
            if state.finished { return (0, nil) }
            if let replayed = state.replayedThrough, let sequence = frame.sequence, sequence <= replayed { return (0, nil) }
            // The rest of a commit whose first pieces were dropped goes too: the resync covers the whole commit.
            if let mark = state.overflowedAt, let sequence = frame.sequence, sequence <= mark { return (0, nil) }
            let waiter = state.waiter
            state.waiter = nil
            if state.frames.count >= capacity {
                let dropped = state.frames.count
                let newest = frame.sequence ?? state.frames.compactMap(\.sequence).max() ?? 0
                state.overflowedAt = max(state.overflowedAt ?? newest, newest)
                state.frames.removeAll(keepingCapacity: true)
                return (-dropped, waiter)
            }
            state.frames.append(frame)
            return (1, waiter)
        }
        waiter?.resume()
        return change
    }

    /// Queues a heartbeat when nothing else waits (a client that has frames to read needs no heartbeat).
    func pushHeartbeatIfIdle() {
        let (queued, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.finished, state.frames.isEmpty, state.overflowedAt == nil else { return (false, nil) }
            state.frames.append(.heartbeat)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        if queued { backlog.increment() }
        waiter?.resume()
    }

    /// Makes the queue continue after `position`, the last commit the client got from the change log: drops the
    /// frames at or below it, now and when they come later. Returns false when frames above it were dropped by an overflow meanwhile: the caller
    /// reads the log again from `position`, then calls this again.
    func startLive(after position: Int64) -> Bool {
        let (removed, caughtUp) = state.withLock { state -> (Int, Bool) in
            let before = state.frames.count
            state.replayedThrough = max(state.replayedThrough ?? position, position)
            state.frames.removeAll { frame in frame.sequence.map { $0 <= position } ?? false }
            let removed = before - state.frames.count
            guard let mark = state.overflowedAt else { return (removed, true) }
            if mark <= position {
                state.overflowedAt = nil
                return (removed, true)
            }
            return (removed, false)
        }
        if removed > 0 { backlog.decrement(by: Double(removed)) }
        return caughtUp
    }

    /// Waits for frames and takes them all; nil once the queue is finished and empty.
    func next() async -> Batch? {
        while true {
            let batch = state.withLock { state -> Batch?? in
                if !state.frames.isEmpty || state.overflowedAt != nil {
                    let batch = Batch(overflowedAt: state.overflowedAt, frames: state.frames)
                    state.frames = []
                    state.overflowedAt = nil
                    return .some(batch)
                }
                return state.finished ? .some(nil) : nil
            }
            if let batch {
                if let frames = batch?.frames, !frames.isEmpty { backlog.decrement(by: Double(frames.count)) }
                return batch
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.hasWork { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Ends the queue: the writer gets what is queued, then nil. Safe to call more than once, from any thread.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Drops what is still queued (the client is gone), so the backlog gauge does not keep counting it.
    func discard() {
        let removed = state.withLock { state -> Int in
            state.finished = true
            defer { state.frames = [] }
            return state.frames.count
        }
        if removed > 0 { backlog.decrement(by: Double(removed)) }
    }
}
