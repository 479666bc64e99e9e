import Foundation

/// Everything one transaction changed, delivered once after it committed.
public struct Commit: Sendable, Equatable {
    /// The store-wide commit number: gap-free and increasing, across every process writing through the library.
    public let sequence: Int64
    /// When the commit was made (to the millisecond).
    public let committedAt: Date
    /// The tag the writer passed to `write(origin:)`, if any.
    public let origin: String?
    /// The row changes, in the order they were made (those matching the listener's filter).
    public let changes: [Change]
    /// Whether the transaction changed the schema (CREATE, DROP, ALTER): cached reads should be refreshed.
    public let schemaChanged: Bool
    /// Whether this log entry stands for a write made by a program that does not log its changes (the
    /// `sqlite3` shell, another library): no changes are known. Listeners receive it as
    /// `.resync(.externalChange)`; it shows as a commit only where the log is read directly
    /// (`Store.commits(after:limit:)`).
    public let isExternalChange: Bool

    /// Makes a commit.
    public init(
        sequence: Int64, committedAt: Date, origin: String?, changes: [Change], schemaChanged: Bool,
        isExternalChange: Bool = false
    ) {
        self.sequence = sequence
        self.committedAt = committedAt
        self.origin = origin
        self.changes = changes
        self.schemaChanged = schemaChanged
        self.isExternalChange = isExternalChange
    }
}
