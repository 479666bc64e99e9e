import Foundation
import ObservableStoreCore
import StoreSQLite

extension Store {
    /// The commits in the change log after `sequence`, oldest first (at most `limit`), decoded.
    ///
    /// The log keeps what ``StoreConfiguration/retention`` says; a first sequence above `sequence + 1`
    /// means the commits in between were pruned.
    public func commits(after sequence: Int64, limit: Int = 512) throws -> [Commit] {
        try read { tx in try ChangeLog.read(after: sequence, limit: limit, on: tx.connection) }.map { try $0.decoded() }
    }

    /// The last commit sequence assigned in this store (0 before the first commit).
    public func lastSequence() throws -> Int64 {
        try read { try ChangeLog.lastSequence($0) }
    }
}
