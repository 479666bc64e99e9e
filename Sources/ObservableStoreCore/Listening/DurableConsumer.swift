/// What reads the change log for a durable listener: the core's ``DurableListener`` on SQLite, a claim of the name
/// across hosts on PostgreSQL. ``RecordStore/listenDurably(_:filter:startingAt:handler:)`` wakes it at each commit.
package protocol DurableConsumer: AnyObject, Sendable {
    /// Starts: replays what is after the cursor, then goes on live.
    func begin()
    /// A commit was published: read the log.
    func wake()
    /// Stops for good: no delivery after it returns (unless called from the handler).
    func stop()
}

extension DurableListener: DurableConsumer {
    /// Replays what is after the cursor.
    package func begin() { wake() }
}
