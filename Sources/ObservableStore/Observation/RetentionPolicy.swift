/// How much of the change log a store keeps.
///
/// Commits older than both limits may be pruned (by age: a commit goes when it and every commit
/// before it are older than ``maximumAge``), but never past the slowest durable listener's
/// cursor — unless that listener lags more than ``hardCapCommits``, in which case it is pruned past
/// and gets ``DurableEvent/cursorExpired(missed:)``. Pruning is bookkeeping: it emits no events.
///
/// For example:
///
/// ```swift
/// var configuration = StoreConfiguration()
/// configuration.retention = RetentionPolicy(maximumCommits: 10_000, maximumAge: .seconds(86_400))
/// ```
public struct RetentionPolicy: Sendable, Equatable {
    /// Keep at least the last this many commits (nil: no count limit). 100,000 by default.
    public var maximumCommits: Int?
    /// Keep at least the commits younger than this (nil: no age limit). 7 days by default.
    public var maximumAge: Duration?
    /// Keep at most this many commits even for a lagging durable listener (nil: no cap). 1,000,000 by default.
    public var hardCapCommits: Int?
    /// How many of this process's commits pass between two pruning runs. 1,000 by default.
    public var pruneInterval: Int

    /// A policy; the defaults keep 100,000 commits or 7 days, whichever is more, capped at 1,000,000.
    public init(
        maximumCommits: Int? = 100_000, maximumAge: Duration? = .seconds(7 * 86_400), hardCapCommits: Int? = 1_000_000,
        pruneInterval: Int = 1_000
    ) {
        self.maximumCommits = maximumCommits
        self.maximumAge = maximumAge
        self.hardCapCommits = hardCapCommits
        self.pruneInterval = max(1, pruneInterval)
    }
}
