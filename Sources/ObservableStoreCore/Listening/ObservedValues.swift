/// An observed read as an `AsyncSequence`: the current value first, then a new one after each commit that
/// changes it — commits of this process and of others, in sequence order.
///
/// Values never go back in time, no sequence comes twice, and an unchanged value is not delivered again.
/// Under a burst of commits values coalesce (the latest wins), and the last value after writes stop is a
/// fresh read. A resync (missed commits, another program's write) reads again. The sequence ends when the
/// iterating task is cancelled, the iteration ends (its listener is then removed), or the store closes;
/// it throws when a read fails. Iterate it once, from one task.
///
/// For example:
///
/// ```swift
/// for try await nodes in try store.values(of: RecordQuery<NodeVO>().filter("x", .greaterThan, 100)) {
///     print(nodes.sequence, nodes.value.map(\.name))
/// }
/// ```
public struct ObservedValues<Value: Sendable>: AsyncSequence, Sendable {
    /// Each element is a value and the sequence it reflects.
    public typealias Element = Observed<Value>

    let channel: LatestValueChannel<Value>

    /// A sequence of what `channel` accepts.
    package init(channel: LatestValueChannel<Value>) { self.channel = channel }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(iteration: Iteration(channel: channel))
    }

    /// Waits for the next value.
    public struct Iterator: AsyncIteratorProtocol {
        let iteration: Iteration

        /// The next value, or nil once the sequence ended.
        public mutating func next() async throws -> Observed<Value>? {
            try await iteration.channel.next()
        }
    }

    /// One iteration of the sequence: ends it when the iterator is released (a `for await` loop that exits).
    final class Iteration: Sendable {
        let channel: LatestValueChannel<Value>
        init(channel: LatestValueChannel<Value>) { self.channel = channel }
        deinit { channel.finish() }
    }
}
