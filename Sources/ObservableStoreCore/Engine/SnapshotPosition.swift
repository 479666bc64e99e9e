/// Where a snapshot read stands in the commit sequence: every commit up to ``sequence`` is in the snapshot, and so
/// are the commits listed in ``laterCommits``; no other commit is.
///
/// On SQLite a snapshot is always a prefix (``laterCommits`` is empty). The PostgreSQL engine numbers commits just
/// after they commit, so a snapshot can hold a commit that is numbered after the head it read: such commits are
/// listed here, and bind-and-fire skips their events (the value already holds them).
package struct SnapshotPosition: Sendable, Equatable, CustomStringConvertible {
    /// The last commit of the prefix the snapshot holds.
    package var sequence: Int64
    /// Commits after ``sequence`` the snapshot also holds, ascending.
    package var laterCommits: [Int64]

    /// A position at `sequence`, with `laterCommits` (each above `sequence`) also held.
    package init(sequence: Int64, laterCommits: [Int64] = []) {
        self.sequence = sequence
        self.laterCommits = laterCommits.filter { $0 > sequence }.sorted()
    }

    /// Whether the snapshot already holds commit `commit`.
    package func includes(_ commit: Int64) -> Bool {
        commit <= sequence || laterCommits.contains(commit)
    }

    /// The position of a value that, delivered in order, has also taken commit `commit`.
    package func advanced(to commit: Int64) -> SnapshotPosition {
        commit <= sequence ? self : SnapshotPosition(sequence: commit, laterCommits: laterCommits)
    }

    package var description: String {
        laterCommits.isEmpty ? "\(sequence)" : "\(sequence)+\(laterCommits.map(String.init).joined(separator: ","))"
    }
}
