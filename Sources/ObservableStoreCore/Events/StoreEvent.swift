/// What a listener receives: a commit, or a reason to read again what it shows.
///
/// A `switch` over it should end with `default:` (or handle every case): new cases may be added.
public enum StoreEvent: Sendable, Equatable {
    /// A commit with at least one change matching the listener's filter (or a schema change: see
    /// ``Commit/schemaChanged``).
    case commit(Commit)
    /// Something happened that the listener's events do not describe: read again what it shows.
    case resync(ResyncReason)

    /// The commit sequence the event is about: the commit's, or the last one a resync covers (nil for an
    /// external change).
    public var sequence: Int64? {
        switch self {
        case .commit(let commit): commit.sequence
        case .resync(let reason): reason.missed?.upperBound
        }
    }
}
