/// Where a new durable listener starts.
public enum DurableStart: Sendable, Equatable {
    /// After the last commit made so far (the default): it receives only what comes next.
    case now
    /// With the oldest commit the change log still keeps.
    case beginning
}
