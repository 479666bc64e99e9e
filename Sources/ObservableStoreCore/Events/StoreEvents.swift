import Foundation

/// An `AsyncSequence` of a store's commits, for Swift concurrency callers.
///
/// The sequence buffers up to its size; a consumer that falls further behind receives one `.resync(.missedCommits)`
/// event naming the commits it missed, never silence. It ends when the iterating task is cancelled
/// or the store closes. Iterate it once, from one task: when that iteration ends (the loop exits, or the
/// iterator is released), the sequence ends too and its listener is removed.
///
/// For example:
///
/// ```swift
/// for await event in store.changes(filter: .table("nodes")) {
///     if case .commit(let commit) = event { print(commit.sequence, commit.changes.count) }
/// }
/// ```
public struct StoreEvents: AsyncSequence, Sendable {
    /// Each element is one commit, or a resync.
    public typealias Element = StoreEvent

    let channel: EventChannel

    /// A sequence of what `channel` receives.
    package init(channel: EventChannel) { self.channel = channel }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(iteration: Iteration(channel: channel))
    }

    /// Waits for the next event.
    public struct Iterator: AsyncIteratorProtocol {
        let iteration: Iteration

        /// The next event, or nil once the sequence ended.
        public mutating func next() async -> StoreEvent? {
            await iteration.channel.next()
        }
    }

    /// One iteration of the sequence: ends it when the iterator is released (a `for await` loop that exits).
    final class Iteration: Sendable {
        let channel: EventChannel
        init(channel: EventChannel) { self.channel = channel }
        deinit { channel.finish() }
    }
}
