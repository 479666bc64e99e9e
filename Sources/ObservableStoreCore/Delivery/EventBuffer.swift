/// A bounded FIFO of events for one consumer. When full, further commits are not stored: their
/// sequence range is remembered and handed out as one `.resync(.missedCommits)` event once the stored
/// events are consumed, so a slow consumer learns exactly what it missed and never blocks the producer.
package struct EventBuffer {
    package let capacity: Int
    private var events: [StoreEvent] = []
    private var head = 0
    private var missed: ClosedRange<Int64>?

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The number of events waiting (a pending missed range counts as one).
    package var count: Int { events.count - head + (missed == nil ? 0 : 1) }

    /// Stores `event`, or folds it into the pending missed range when the buffer is full (or already overflowed).
    package mutating func push(_ event: StoreEvent) {
        let range: ClosedRange<Int64>
        switch event {
        case .commit(let commit): range = commit.sequence...commit.sequence
        case .resync(let reason):
            guard let missedByReason = reason.missed else {
                // Kept even when full: it carries no sequence to fold into the missed range, and a pending
                // missed range already means "read again".
                if missed == nil { events.append(event) }
                return
            }
            range = missedByReason
        }
        if let pending = missed {
            missed = min(pending.lowerBound, range.lowerBound)...max(pending.upperBound, range.upperBound)
        } else if events.count - head >= capacity {
            missed = range
        } else {
            events.append(event)
        }
    }

    /// The next event: stored events in order, then the missed range, if any.
    package mutating func pop() -> StoreEvent? {
        if head < events.count {
            let event = events[head]
            head += 1
            if head == events.count || head > 1024 {
                events.removeFirst(head)
                head = 0
            }
            return event
        }
        if let gap = missed {
            missed = nil
            return .resync(.missedCommits(gap))
        }
        return nil
    }

    /// Drops every stored event at or below `sequence` (bind-and-fire: already in the initial value).
    package mutating func drop(through sequence: Int64) {
        events.removeFirst(head)
        head = 0
        events.removeAll { ($0.sequence ?? .max) <= sequence }
        if let gap = missed {
            missed = gap.upperBound <= sequence ? nil : max(gap.lowerBound, sequence + 1)...gap.upperBound
        }
    }

    /// Drops everything.
    package mutating func removeAll() {
        events.removeAll()
        head = 0
        missed = nil
    }
}
