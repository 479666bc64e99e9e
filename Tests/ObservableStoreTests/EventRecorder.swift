import Foundation
import ObservableStore

/// Records the events a listener receives, from any thread, and lets a test wait for them.
final class EventRecorder: @unchecked Sendable {
    // @unchecked: `events` is guarded by `condition`.
    private let condition = NSCondition()
    private var events: [StoreEvent] = []

    func record(_ event: StoreEvent) {
        condition.withLock {
            events.append(event)
            condition.broadcast()
        }
    }

    var all: [StoreEvent] { condition.withLock { events } }

    /// The commits received so far.
    var commits: [Commit] {
        all.compactMap { if case .commit(let commit) = $0 { commit } else { nil } }
    }

    /// Every change of every commit received so far.
    var changes: [Change] { commits.flatMap(\.changes) }

    /// Waits until at least `count` events arrived (at most `timeout`); returns whether they did.
    @discardableResult
    func wait(for count: Int, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while events.count < count {
                if !condition.wait(until: deadline) { return events.count >= count }
            }
            return true
        }
    }
}

extension Store {
    /// Registers an immediate listener recording into a new recorder (delivered before `write` returns).
    func record(_ name: String = "recorder", filter: ChangeFilter = .all) -> (EventRecorder, ListenerToken) {
        let recorder = EventRecorder()
        let token = listen(name, filter: filter, options: ListenerOptions(immediate: true)) { recorder.record($0) }
        return (recorder, token)
    }
}

extension Change {
    /// "op table key", e.g. "delete nodes 3", for compact assertions.
    var summary: String {
        "\(operation.rawValue) \(table) \(key.map(\.description).joined(separator: ","))"
    }
}
