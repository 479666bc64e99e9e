import Foundation
import ObservableStore

/// Values appended from any thread (events, failures, thread names), read and waited for by the test.
///
/// For example:
///
/// ```swift
/// let recorder = EventRecorder()
/// let token = store.listen("all") { recorder.record($0) }
/// try store.repository(NodeVO.self).insert(node)
/// #expect(recorder.wait(for: 1))
/// ```
public final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    /// An empty recorder.
    public init() {}

    /// Appends `item` and wakes the waiters.
    public func append(_ item: Element) {
        items.withLock { $0.append(item) }
    }

    /// Everything appended so far, in order.
    public var all: [Element] { items.value }

    /// How many items were appended so far.
    public var count: Int { items.withLock { $0.count } }

    /// Forgets everything appended so far.
    public func removeAll() {
        items.withLock { $0.removeAll() }
    }

    /// Waits until at least `count` items arrived (at most `timeout` seconds); whether they did.
    @discardableResult
    public func wait(for count: Int, timeout: Double = defaultWaitSeconds) -> Bool {
        items.wait(timeout: timeout) { $0.count >= count }
    }
}

/// Records the events a listener receives.
public typealias EventRecorder = Recorder<StoreEvent>

extension Recorder where Element == StoreEvent {
    /// Appends `event` (a listener's handler).
    public func record(_ event: StoreEvent) {
        append(event)
    }

    /// The commits received so far.
    public var commits: [Commit] {
        all.compactMap { if case .commit(let commit) = $0 { commit } else { nil } }
    }

    /// Every change of every commit received so far.
    public var changes: [Change] { commits.flatMap(\.changes) }
}

extension SQLiteStore {
    /// Registers an immediate listener recording into a new recorder (delivered before `write` returns).
    public func record(_ name: String = "recorder", filter: ChangeFilter = .all) -> (EventRecorder, ListenerToken) {
        let recorder = EventRecorder()
        let token = listen(name, filter: filter, options: ListenerOptions(immediate: true)) { recorder.record($0) }
        return (recorder, token)
    }
}
