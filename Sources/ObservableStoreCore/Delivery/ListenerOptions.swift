/// How a listener is delivered to.
public struct ListenerOptions: Sendable {
    /// Deliver synchronously on the publishing thread (normally the writer's), after COMMIT and before
    /// `write` returns. The handler must be quick and must not write to the store (a nested write, refused).
    /// False by default: the handler runs on another thread and the writer never waits for it (a small
    /// commit is still decoded and queued for it on the writer's thread, which takes microseconds).
    public var immediate = false
    /// How many commits may wait for the handler; past that they are replaced by one `.resync(.missedCommits)` event. 1024 by default.
    public var bufferSize = 1024

    /// Options with the defaults.
    public init(immediate: Bool = false, bufferSize: Int = 1024) {
        self.immediate = immediate
        self.bufferSize = bufferSize
    }
}
