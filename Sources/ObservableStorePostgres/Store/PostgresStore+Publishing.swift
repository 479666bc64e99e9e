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

    /// ``didCommit(sequence:)`` on a global dispatch queue's thread (publication reads the log with blocking calls),
    /// the caller suspended until it is done: immediate listeners have run when an `async` write returns.
    func didCommitOffThread(sequence: Int64) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.didCommit(sequence: sequence)
                done.resume()
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
