import StoreSQLite

/// A part of the writer that follows each of its write transactions (GRDB's `TransactionObserver` pattern): the
/// change log, the foreign-write detector and the pruning schedule. ``CommitPipeline/transaction(on:seenAt:_:)``,
/// the one place the writer's transactions begin and end, tells every observer of ``Writer/observers`` just before
/// COMMIT, right after it, or after a rollback.
///
/// Called with the writer's lock held, on the writer connection.
protocol WriteObserver: AnyObject {
    /// Just before COMMIT, inside the transaction; throwing rolls the transaction back.
    func writeWillCommit(on connection: Connection) throws
    /// Right after COMMIT succeeded, before the connection reads again (its data version is the one this commit left).
    func writeDidCommit(on connection: Connection)
    /// After the transaction rolled back: the file is as the last commit left it.
    func writeDidRollBack()
}

extension WriteObserver {
    func writeWillCommit(on connection: Connection) throws {}
}
