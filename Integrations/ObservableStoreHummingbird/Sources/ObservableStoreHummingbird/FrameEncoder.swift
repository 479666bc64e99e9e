import ObservableStore

/// Turns the change log's entries into a stream's frames: applies the stream's filter, and keeps a commit logged in
/// pieces whole from the client's point of view (its last piece goes out, with no changes if none matched, whenever
/// an earlier piece went out, because only the last piece carries the `id:`).
struct FrameEncoder {
    let filter: ChangeFilter
    /// The commit whose earlier pieces produced a frame, while its last piece is still to come.
    private var openCommit: Int64?

    init(filter: ChangeFilter) {
        self.filter = filter
    }

    /// The frame for `entry`, one entry of the change log, or nil when the filter leaves nothing of it.
    mutating func frame(for entry: Commit, live: Bool) -> EventFrame? {
        if entry.isExternalChange { return .resync(.externalChange, at: entry.sequence) }
        let matching = filter.apply(entry)
        defer {
            if entry.isLastPiece { openCommit = nil } else if matching != nil { openCommit = entry.sequence }
        }
        if let matching { return .commit(matching, live: live) }
        guard entry.isLastPiece, openCommit == entry.sequence else { return nil }
        let closing = Commit(
            sequence: entry.sequence, committedAt: entry.committedAt, origin: entry.origin, changes: [],
            schemaChanged: entry.schemaChanged, piece: entry.piece)
        return .commit(closing, live: live)
    }
}
