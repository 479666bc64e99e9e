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
