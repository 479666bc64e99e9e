import Foundation

/// Everything one transaction changed, delivered once after it committed; or one piece of it, when the
/// transaction was too large to hand over at once (see ``piece``).
///
/// A commit whose changes take more than a few MiB in the change log is logged and delivered in pieces: every
/// piece is a `Commit` with the same ``sequence``, ``committedAt``, ``origin`` and ``schemaChanged``, and
/// ``piece`` says which one it is. Pieces are delivered in order, one event each, and together hold every
/// change of the transaction once. A listener whose filter matches nothing in a piece does not get that
/// piece, but a listener that got any piece of a commit always gets its last one (possibly with no changes
/// of its own), so it can tell the commit is complete. Most commits are one piece: piece 0 of 1.
///
/// For example, applying a commit only once it is complete:
///
/// ```swift
/// var pending: [Change] = []
/// func handle(_ commit: Commit) {
///     pending += commit.changes
///     guard commit.isLastPiece else { return }
///     apply(pending)
///     pending = []
/// }
/// ```
public struct Commit: Sendable, Equatable {
    /// Which part of a commit's changes a ``Commit`` holds.
    public struct Piece: Sendable, Hashable, CustomStringConvertible {
        /// The piece's position, from 0.
        public let index: Int
        /// How many pieces the commit has (1 for all but very large transactions).
        public let count: Int

        /// A whole commit: piece 0 of 1.
        public static let whole = Piece(index: 0, count: 1)

        /// Piece `index` (from 0) of `count`.
        public init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }

        /// Whether this is the commit's last piece (true for a whole commit).
        public var isLast: Bool { index == count - 1 }

        /// "piece 2 of 5", counted from 1.
        public var description: String { "piece \(index + 1) of \(count)" }
    }

    /// The store-wide commit number: gap-free and increasing, across every process writing through the library.
    public let sequence: Int64
    /// When the commit was made (to the millisecond).
    public let committedAt: Date
    /// The tag the writer passed to `write(origin:)`, if any.
    public let origin: String?
    /// The row changes, in the order they were made (those matching the listener's filter); for a commit in
    /// pieces, this piece's.
    public let changes: [Change]
    /// Whether the transaction changed the schema (CREATE, DROP, ALTER): cached reads should be refreshed.
    public let schemaChanged: Bool
    /// Whether this log entry stands for a write made by a program that does not log its changes (the
    /// `sqlite3` shell, another library): no changes are known. Listeners receive it as
    /// `.resync(.externalChange)`; it shows as a commit only where the log is read directly
    /// (`SQLiteStore.commits(after:limit:)`).
    public let isExternalChange: Bool
    /// Which piece of the commit this is: ``Piece/whole`` unless the transaction was logged in pieces.
    public let piece: Piece

    /// Whether this is the commit's last piece (always true for a commit in one piece).
    public var isLastPiece: Bool { piece.isLast }

    /// Makes a commit (or, with `piece`, one piece of one).
    public init(
        sequence: Int64, committedAt: Date, origin: String?, changes: [Change], schemaChanged: Bool,
        isExternalChange: Bool = false, piece: Piece = .whole
    ) {
        self.sequence = sequence
        self.committedAt = committedAt
        self.origin = origin
        self.changes = changes
        self.schemaChanged = schemaChanged
        self.isExternalChange = isExternalChange
        self.piece = piece
    }

    /// The same commit (or piece) with other changes: a filter's part of it.
    package func with(changes: [Change]) -> Commit {
        Commit(
            sequence: sequence, committedAt: committedAt, origin: origin, changes: changes, schemaChanged: schemaChanged,
            isExternalChange: isExternalChange, piece: piece)
    }
}
