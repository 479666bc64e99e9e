/// Why a listener must read again what it shows instead of applying changes.
///
/// A `switch` over it should end with `default:` (or handle every case): new cases may be added.
public enum ResyncReason: Sendable, Equatable, CustomStringConvertible {
    /// These commits were not delivered: the listener fell too far behind its buffer
    /// (``ListenerOptions/bufferSize``), or they left the change log (retention) or could not be read from
    /// it before they were published.
    case missedCommits(ClosedRange<Int64>)
    /// A program that does not log its changes (the `sqlite3` shell, another library) changed the store:
    /// which rows changed is unknown.
    case externalChange
    /// A durable listener's cursor fell behind what the change log keeps: these commits are gone.
    /// Delivered once; the cursor then moves past them.
    case cursorExpired(missed: ClosedRange<Int64>)

    /// The commits the reason says were missed, if it names them.
    public var missed: ClosedRange<Int64>? {
        switch self {
        case .missedCommits(let missed), .cursorExpired(let missed): missed
        case .externalChange: nil
        }
    }

    /// A short phrase, for logs.
    public var description: String {
        switch self {
        case .missedCommits(let missed): "missed commits \(missed.lowerBound)...\(missed.upperBound)"
        case .externalChange: "external change"
        case .cursorExpired(let missed): "cursor expired, commits \(missed.lowerBound)...\(missed.upperBound) gone"
        }
    }
}
