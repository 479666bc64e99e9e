import Synchronization

/// Hands each event to every subscriber's `AsyncStream`: the typed notifications of the node editor's presentation
/// model. Safe from any thread; each stream gets the events in the order they were sent.
public final class Broadcast<Event: Sendable>: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<Event>.Continuation]>([:])
    private let nextID = Mutex(0)

    /// A broadcast with no subscriber.
    public init() {}

    /// A new subscriber: the events sent from now on, until the stream's consumer stops iterating.
    public func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let id = nextID.withLock { id in
            id += 1
            return id
        }
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    /// Sends `event` to every subscriber.
    public func send(_ event: Event) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// Ends every subscriber's stream.
    public func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
