import ObservableStoreCore

extension SQLiteTransaction {
    /// The last commit sequence this transaction's snapshot sees (0 before the first commit).
    ///
    /// Read in the same snapshot as the transaction's other reads, so a page of rows and this sequence belong
    /// together: a client that loads the page and then follows the log after this sequence (for example with
    /// ``SQLiteStore/commits(after:limit:)``) misses no commit and sees none twice. Inside one read transaction the
    /// value does not change while other connections commit; in a write transaction it is the sequence before
    /// this write's own commit.
    public func lastSequence() throws -> Int64 {
        try ChangeLog.lastSequence(self)
    }
}
