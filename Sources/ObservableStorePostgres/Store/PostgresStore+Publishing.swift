#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres

extension PostgresStore {
    /// Publishes this store's commit `sequence` to the listeners once its COMMIT succeeded: immediate listeners are
    /// called before this returns, the others on their delivery threads. Exactly once together with the change feed,
    /// which sees the same commit in the log (the publisher skips what it already published). Every
    /// ``/ObservableStoreCore/RetentionPolicy/pruneInterval`` own commits, the change log is pruned off this thread.
    package func didCommit(sequence: Int64) {
        observation.publishOwnCommit(sequence)
        pruneIfDue()
    }

    /// Publishes this store's commit `sequence` after an awaited write, as ``didCommit(sequence:)`` does, reading
    /// the log on `connection` (the write's own, still checked out) with the caller suspended: immediate listeners
    /// have the commit when this returns. When that read fails, the feed publishes the commit later.
    nonisolated(nonsending) func didCommit(sequence: Int64, readingOn connection: ServerConnection) async {
        await observation.publishOwnCommit(sequence, readingOn: connection)
        pruneIfDue()
    }

    /// Every ``/ObservableStoreCore/RetentionPolicy/pruneInterval`` own commits, prunes the change log on a global
    /// dispatch queue's thread.
    private func pruneIfDue() {
        guard observation.pruningIsDue(every: configuration.retention.pruneInterval) else { return }
        DispatchQueue.global(qos: .utility).async { [weak self] in
            guard let self else { return }
            do {
                try self.pruneChangeLog()
            } catch {
                self.configuration.logger.warning("pruning the change log failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The server process of the change feed's connection (`pg_backend_pid()`), nil while it is disconnected or when
    /// the store does not track changes: for tests and diagnostics.
    package var changeFeedProcessID: Int64? { observation.feed?.serverProcessID }

    /// How many times the change feed has connected (1 until a reconnect).
    package var changeFeedConnections: Int { observation.feed?.connections ?? 0 }
}
#endif
