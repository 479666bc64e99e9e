import Foundation
import ObservableStoreCore

/// A commit written to the change log, ready to be published once COMMIT succeeds; or read back from it.
package struct LoggedCommit: ChangeLogEntry {
    package var sequence: Int64
    var committedAt: Date
    var origin: String?
    var payload: [UInt8]
    var schemaChanged: Bool
    /// A marker for a foreign write (see ``ChangeLog/appendMarker(_:origin:on:)``), not the library's commit.
    package var isExternalChange = false

    /// The payload's size.
    package var encodedSize: Int { payload.count }

    /// The commit with its payload decoded.
    package func decoded() throws -> Commit {
        Commit(
            sequence: sequence, committedAt: committedAt, origin: origin, changes: try ChangePayload.decode(payload),
            schemaChanged: schemaChanged, isExternalChange: isExternalChange)
    }
}
