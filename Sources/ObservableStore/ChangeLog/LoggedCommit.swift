import Foundation
import ObservableStoreCore

/// A commit written to the change log, ready to be published once COMMIT succeeds; or read back from it.
/// A commit logged in pieces is one `LoggedCommit` per piece: the commit row's holds piece 0, and says how many
/// there are; the others are read from the log one at a time (``ChangeLog/readPiece(_:of:on:)``).
package struct LoggedCommit: ChangeLogEntry {
    package var sequence: Int64
    var committedAt: Date
    var origin: String?
    /// This piece's payload.
    var payload: [UInt8]
    var schemaChanged: Bool
    /// A marker for a foreign write (see ``ChangeLog/appendMarker(_:origin:on:)``), not the library's commit.
    package var isExternalChange = false
    /// How many pieces the commit has (1 for most).
    package var pieceCount = 1
    /// Which piece this is, from 0.
    package var pieceIndex = 0

    /// The payload's size.
    package var encodedSize: Int { payload.count }

    /// The commit (this piece of it) with its payload decoded.
    package func decoded() throws -> Commit {
        Commit(
            sequence: sequence, committedAt: committedAt, origin: origin, changes: try ChangePayload.decode(payload),
            schemaChanged: schemaChanged, isExternalChange: isExternalChange,
            piece: Commit.Piece(index: pieceIndex, count: pieceCount))
    }
}
