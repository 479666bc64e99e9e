#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore

extension PostgresStore {
    /// Publishes this store's commit `sequence` to the listeners once its COMMIT succeeded: immediate listeners are
    /// called before this returns, the others on their delivery threads. Exactly once together with the change feed,
    /// which sees the same commit in the log (the publisher skips what it already published). Every
    /// ``/ObservableStoreCore/RetentionPolicy/pruneInterval`` own commits, the change log is pruned off this thread.
    package func didCommit(sequence: Int64) {
        observation.publishOwnCommit(sequence)
        if observation.pruningIsDue(every: configuration.retention.pruneInterval) {
            DispatchQueue.global(qos: .utility).async { [weak self] in
                guard let self else { return }
                do {
                    try self.pruneChangeLog()
                } catch {
                    self.configuration.logger.warning("pruning the change log failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
#endif
