/// A commit as an engine's change log holds it: its sequence, and its changes decoded on demand (a commit
/// nobody listens to is never decoded).
///
/// The SQLite engine's entries are rows of `_store_commits` with a binary payload (docs/OBSERVATION.md).
package protocol ChangeLogEntry: Sendable {
    /// The store-wide commit number: gap-free, in commit order.
    var sequence: Int64 { get }
    /// Whether the entry marks a foreign write (every listener gets `.resync(.externalChange)`) rather than a
    /// commit of this library's.
    var isExternalChange: Bool { get }
    /// The size of the encoded changes in bytes: small commits are decoded on the publishing thread.
    var encodedSize: Int { get }
    /// How many pieces the commit was logged in (1 for most; see ``Commit/piece``). An entry read from the
    /// log's list of commits holds piece 0; the others are read one at a time.
    var pieceCount: Int { get }
    /// The commit (this entry's piece of it), its changes decoded.
    func decoded() throws -> Commit
}

/// Reads an engine's change log, on a connection (or snapshot) the engine chose: what a
/// ``CommitPublisher`` catches up from.
package protocol ChangeLogReading<Entry> {
    /// The engine's log entry.
    associatedtype Entry: ChangeLogEntry
    /// The entries after `sequence` (through `last`, when given), oldest first, at most `limit`. An engine may
    /// end a page sooner (the SQLite engine does once it holds a few MiB of payloads): only an empty page
    /// means that nothing more is there.
    func entries(after sequence: Int64, through last: Int64?, limit: Int) throws -> [Entry]
    /// The last sequence the log assigned (0 before the first commit).
    func lastSequence() throws -> Int64
    /// Piece `index` of commit `sequence`, or nil when the log no longer holds it.
    func piece(_ index: Int, of sequence: Int64) throws -> Entry?
}
