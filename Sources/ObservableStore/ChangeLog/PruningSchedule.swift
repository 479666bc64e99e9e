import StoreSQLite

/// Counts this process's logged commits, and says when the change log is due for pruning
/// (every ``/ObservableStoreCore/RetentionPolicy/pruneInterval`` of them). A commit counts once it committed; a
/// rolled-back one does not.
///
/// Used only inside writes (the writer's lock held); not thread-safe.
final class PruningSchedule: WriteObserver {
    /// Whether the open transaction appended a commit to the log.
    private var loggedInTransaction = false
    /// Logged commits since the log was last pruned.
    private(set) var commitsSincePruning = 0

    /// The open transaction appended a commit to the log.
    func didLog() {
        loggedInTransaction = true
    }

    func writeDidCommit(on connection: Connection) {
        if loggedInTransaction { commitsSincePruning += 1 }
        loggedInTransaction = false
    }

    func writeDidRollBack() {
        loggedInTransaction = false
    }

    /// Whether `interval` logged commits have come since the last pruning; when they have, starts counting again.
    func takeIfDue(every interval: Int) -> Bool {
        guard commitsSincePruning >= interval else { return false }
        commitsSincePruning = 0
        return true
    }
}
