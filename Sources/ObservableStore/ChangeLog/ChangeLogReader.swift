import ObservableStoreCore
import StoreSQLite

/// The change log read on one connection, for ``CommitPublisher``: the writer's, right after its COMMIT, or
/// the change feed's.
struct ChangeLogReader: ChangeLogReading {
    let connection: Connection

    func entries(after sequence: Int64, through last: Int64?, limit: Int) throws -> [LoggedCommit] {
        try ChangeLog.read(after: sequence, through: last, limit: limit, on: connection)
    }

    func lastSequence() throws -> Int64 {
        try ChangeLog.position(on: connection).last
    }

    func piece(_ index: Int, of sequence: Int64) throws -> LoggedCommit? {
        try ChangeLog.readPiece(index, of: sequence, on: connection)
    }
}
