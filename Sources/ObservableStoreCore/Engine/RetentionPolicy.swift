/// How much of the change log a store keeps.
///
/// The first two limits are floors, not ceilings: a commit may be pruned only when it is outside both
/// (older than the last ``minimumKeptCommits`` commits, and — with every commit before it — older than
/// ``minimumKeptAge``), and never past the slowest durable listener's cursor — unless that listener lags
/// more than ``hardCapCommits``, in which case it is pruned past and gets
/// ``ResyncReason/cursorExpired(missed:)``. Pruning is bookkeeping: it emits no events.
///
/// For example:
///
/// ```swift
/// var configuration = SQLiteStoreConfiguration()
/// configuration.retention = RetentionPolicy(minimumKeptCommits: 10_000, minimumKeptAge: .seconds(86_400))
/// ```
public struct RetentionPolicy: Sendable, Equatable {
    /// Keep at least the last this many commits (nil: no count floor). 100,000 by default.
    public var minimumKeptCommits: Int?
    /// Keep at least the commits younger than this (nil: no age floor). 7 days by default.
    public var minimumKeptAge: Duration?
    /// Keep at most this many commits even for a lagging durable listener (nil: no cap). 1,000,000 by default.
    public var hardCapCommits: Int?
    /// How many of this process's commits pass between two pruning runs. 1,000 by default.
    public var pruneInterval: Int

    /// A policy; the defaults keep 100,000 commits or 7 days, whichever is more, capped at 1,000,000.
    public init(
        minimumKeptCommits: Int? = 100_000, minimumKeptAge: Duration? = .seconds(7 * 86_400),
        hardCapCommits: Int? = 1_000_000, pruneInterval: Int = 1_000
    ) {
        self.minimumKeptCommits = minimumKeptCommits
        self.minimumKeptAge = minimumKeptAge
        self.hardCapCommits = hardCapCommits
        self.pruneInterval = max(1, pruneInterval)
    }
}

extension RetentionPolicy {
    /// The old name of ``minimumKeptCommits``: a floor, not a maximum.
    @available(*, deprecated, renamed: "minimumKeptCommits")
    public var maximumCommits: Int? {
        get { minimumKeptCommits }
        set { minimumKeptCommits = newValue }
    }

    /// The old name of ``minimumKeptAge``: a floor, not a maximum.
    @available(*, deprecated, renamed: "minimumKeptAge")
    public var maximumAge: Duration? {
        get { minimumKeptAge }
        set { minimumKeptAge = newValue }
    }

    /// The old spelling of ``init(minimumKeptCommits:minimumKeptAge:hardCapCommits:pruneInterval:)``.
    @available(*, deprecated, renamed: "init(minimumKeptCommits:minimumKeptAge:hardCapCommits:pruneInterval:)")
    public init(
        maximumCommits: Int?, maximumAge: Duration? = .seconds(7 * 86_400), hardCapCommits: Int? = 1_000_000,
        pruneInterval: Int = 1_000
    ) {
        self.init(
            minimumKeptCommits: maximumCommits, minimumKeptAge: maximumAge, hardCapCommits: hardCapCommits,
            pruneInterval: pruneInterval)
    }

    /// The old spelling of ``init(minimumKeptCommits:minimumKeptAge:hardCapCommits:pruneInterval:)`` without a count.
    @available(*, deprecated, message: "use init(minimumKeptCommits:minimumKeptAge:hardCapCommits:pruneInterval:)")
    public init(maximumAge: Duration?, hardCapCommits: Int? = 1_000_000, pruneInterval: Int = 1_000) {
        self.init(minimumKeptAge: maximumAge, hardCapCommits: hardCapCommits, pruneInterval: pruneInterval)
    }
}
