import Synchronization

/// When this process's writer is at work: published by the writer (``SerializedWriter``), read by the
/// change feed, which polls instead of waking for each of this process's own file writes while they go
/// on (a bulk insert spilling pages to the WAL would otherwise wake it up to once a millisecond).
final class WriteActivity: Sendable {
    private struct State {
        var inProgress = false
        /// When the last write ended (nil before the first).
        var lastEnd: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// The writer's work started (a write, then the checkpoint after it).
    func started() {
        state.withLock { $0.inProgress = true }
    }

    /// That work ended (committed and published or rolled back, and checkpointed if due).
    func ended() {
        state.withLock { state in
            state.inProgress = false
            state.lastEnd = .now
        }
    }

    /// When the writer last ended its work (nil before its first write).
    var lastEnd: ContinuousClock.Instant? {
        state.withLock { $0.lastEnd }
    }

    /// Whether the writer is at work, or stopped within `window` from now.
    func isWriting(orWroteWithin window: Duration) -> Bool {
        state.withLock { state in
            state.inProgress || (state.lastEnd.map { ContinuousClock.now - $0 < window } ?? false)
        }
    }
}
