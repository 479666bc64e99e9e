import Foundation

/// A commit delivered to a durable listener, with the means to acknowledge it inside a write.
public struct DurableCommit: Sendable {
    /// The commit (only the changes matching the listener's filter).
    public let commit: Commit
    /// The durable listener's name.
    public let listenerName: String
    /// Set when the handler acknowledged the commit inside its own write.
    package let acknowledged: LockedValue<Bool>

    /// A delivery of `commit` to durable listener `listenerName`.
    package init(commit: Commit, listenerName: String, acknowledged: LockedValue<Bool>) {
        self.commit = commit
        self.listenerName = listenerName
        self.acknowledged = acknowledged
    }
}

/// What a durable listener receives.
public enum DurableEvent: Sendable {
    /// A commit matching the filter, not yet acknowledged.
    case commit(DurableCommit)
    /// Read the current data again: the cursor expired (``ResyncReason/cursorExpired(missed:)``: the
    /// commits after it left the change log), or a program that does not log its changes changed the
    /// store (``ResyncReason/externalChange``). Delivered once, in its place in the order.
    case resync(ResyncReason)
}

/// One durable listener's cursor, as stored in `_store_listeners`.
public struct DurableListenerInfo: Sendable, Equatable {
    /// The listener's name.
    public let name: String
    /// The last commit sequence it acknowledged.
    public let cursor: Int64
    /// How many commits were made after its cursor.
    public let lag: Int64
    /// When its cursor last moved.
    public let updatedAt: Date

    /// A listener's cursor as an engine reads it.
    package init(name: String, cursor: Int64, lag: Int64, updatedAt: Date) {
        self.name = name
        self.cursor = cursor
        self.lag = lag
        self.updatedAt = updatedAt
    }
}

/// Where a new durable listener starts.
public enum DurableStart: Sendable, Equatable {
    /// After the last commit made so far (the default): it receives only what comes next.
    case now
    /// With the oldest commit the change log still keeps.
    case beginning
}
