extension RecordStore {
    /// The commits in the change log after `sequence`, oldest first, decoded: at most `limit` of them, and fewer
    /// once they hold a few MiB of changes (so a reader never holds a whole huge commit); an empty array means the
    /// log holds nothing after `sequence`.
    ///
    /// A very large commit may be logged in pieces on SQLite (see ``Commit/piece``): it comes as its pieces, each
    /// counted as one, and a page may end inside it: continue with ``commits(following:limit:)``.
    ///
    /// The log keeps what the store's retention policy says (``RetentionPolicy``); a first sequence above
    /// `sequence + 1` means the commits in between were pruned.
    public func commits(after sequence: Int64, limit: Int = 512) throws -> [Commit] {
        try engineHandle.engine.loggedCommits(from: sequence + 1, piece: 0, limit: limit)
    }

    /// The commits (or pieces of commits) logged after `commit`, which is one this store returned: the rest of its
    /// commit's pieces first, then the commits after it, as ``commits(after:limit:)`` returns them.
    ///
    /// For example, reading the whole log a page at a time:
    ///
    /// ```swift
    /// var page = try store.commits(after: 0)
    /// while let last = page.last {
    ///     for commit in page { print(commit.sequence, commit.piece, commit.changes.count) }
    ///     page = try store.commits(following: last)
    /// }
    /// ```
    public func commits(following commit: Commit, limit: Int = 512) throws -> [Commit] {
        guard !commit.isLastPiece else { return try commits(after: commit.sequence, limit: limit) }
        return try engineHandle.engine.loggedCommits(from: commit.sequence, piece: commit.piece.index + 1, limit: limit)
    }
}
