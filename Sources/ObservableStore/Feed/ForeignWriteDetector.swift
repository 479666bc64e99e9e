import ObservableStoreCore
import StoreSQLite

/// Tells, at the start of each write, whether a program that does not log its changes (the `sqlite3`
/// shell, another library) wrote to the file since this writer's last commit.
///
/// After each commit the writer remembers the file's data version (which moves whenever another
/// connection commits) and where the change log stood: the last sequence and the bookkeeping counter
/// (which every library write that adds no log row moves). When the next write begins and the data
/// version moved but neither of those did, the commits in between were not the library's: a foreign
/// write. The writer then logs a marker for it (``ChangeLog/appendMarker(_:origin:on:)``) before its
/// own commit, so that every process sees it once, in its place in the order. Whoever logs a marker
/// moves the log, so a foreign write is logged at most once, however many processes notice it.
///
/// A data version that moved while the WAL holds no committed frame is a WAL started over (a RESTART or
/// TRUNCATE checkpoint), not a write. When other library writers committed in between as well, this
/// writer cannot tell whether a foreign write came between them (docs/OBSERVATION.md states the limits).
///
/// It observes the writer's transactions (``WriteObserver``): where the log stands is remembered when one commits,
/// and forgotten when one rolls back.
///
/// Used only inside writes (the writer's lock held); not thread-safe.
final class ForeignWriteDetector: WriteObserver {
    /// The file as this writer last left it.
    private struct Mark {
        var dataVersion: UInt32
        var last: Int64
        var bookkeeping: Int64
    }

    private var afterLastCommit: Mark?
    /// How many times ``check(on:)`` ran (for tests; read in the writer's turn).
    private(set) var checks = 0
    /// The log's last sequence and bookkeeping counter inside the open transaction, as far as known.
    private var current: (last: Int64, bookkeeping: Int64)?
    /// Whether the open transaction wrote the store's internal tables (a bookkeeping bump, a durable cursor).
    private var bookkeepingMayHaveMoved = false

    /// Remembers where the file stands now, with nothing to report (at open, and after writes that did not
    /// go through ``check(on:)``). Reads in one transaction unless the caller is in one.
    func refresh(on connection: Connection) throws {
        let ownTransaction = !connection.isInTransaction
        if ownTransaction { try StoreError.wrapping { try connection.execute("BEGIN") } }
        defer { if ownTransaction { try? connection.execute("COMMIT") } }
        let position = try ChangeLog.position(on: connection)
        afterLastCommit = Mark(dataVersion: connection.fileDataVersion, last: position.last, bookkeeping: position.bookkeeping)
        current = nil
    }

    /// Call first inside a write transaction: whether a foreign write happened since the last commit this
    /// detector saw. Costs nothing when no other connection committed since (the data version did not move).
    func check(on connection: Connection) throws -> Bool {
        checks += 1
        let dataVersion = connection.fileDataVersion
        if let mark = afterLastCommit, mark.dataVersion == dataVersion {
            current = (mark.last, mark.bookkeeping)
            return false
        }
        let position = try ChangeLog.position(on: connection)
        current = (position.last, position.bookkeeping)
        guard let mark = afterLastCommit else { return false }
        return position.last == mark.last && position.bookkeeping == mark.bookkeeping && walHoldsCommits(connection)
    }

    /// Whether the WAL holds committed frames. When it holds none, the data version moved because the WAL
    /// was started over (a RESTART or TRUNCATE checkpoint, or a writer restarting it before its first
    /// commit), not because anything was committed. True when the wal-index cannot be read.
    private func walHoldsCommits(_ connection: Connection) -> Bool {
        (connection.walIndexFrames()?.walFrames ?? 1) > 0
    }

    /// Whether the log stands exactly at `expected` (last sequence and bookkeeping) inside the open write
    /// transaction: nothing was logged since someone saw the file there.
    func logStands(at expected: LogPosition, on connection: Connection) throws -> Bool {
        let position = try ChangeLog.position(on: connection)
        current = (position.last, position.bookkeeping)
        return position.last == expected.last && position.bookkeeping == expected.bookkeeping && walHoldsCommits(connection)
    }

    /// The transaction appended a log row with `sequence`.
    func didAppend(_ sequence: Int64) {
        current?.last = sequence
    }

    /// The open transaction wrote the store's internal tables (a bookkeeping bump, a durable cursor): the
    /// bookkeeping counter is read again before COMMIT.
    func noteBookkeepingWrite() {
        bookkeepingMayHaveMoved = true
    }

    func writeWillCommit(on connection: Connection) throws {
        guard current != nil, bookkeepingMayHaveMoved else { return }
        current?.bookkeeping = try ChangeLog.position(on: connection).bookkeeping
    }

    func writeDidCommit(on connection: Connection) {
        bookkeepingMayHaveMoved = false
        guard let current else { return }
        afterLastCommit = Mark(dataVersion: connection.fileDataVersion, last: current.last, bookkeeping: current.bookkeeping)
        self.current = nil
    }

    func writeDidRollBack() {
        bookkeepingMayHaveMoved = false
        current = nil
    }
}
