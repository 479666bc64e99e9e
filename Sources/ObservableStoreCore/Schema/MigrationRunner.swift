/// An engine's migrator, as the core drives it: the engine reads its history, checks that the store is one of its
/// own, and applies pending files its way (locks, transactions, backups); what a ``MigrationPolicy`` asks for, and
/// what the history allows (``MigrationPlan``), are decided here, the same on both engines.
package protocol MigrationRunner {
    /// The sets to apply, judged against the history.
    var plan: MigrationPlan { get }
    /// The history rows of every set (empty before the history table exists).
    func readHistory() throws -> [MigrationPlan.HistoryRow]
    /// Throws when the store belongs to another application (SQLite's application id); by default, nothing.
    func checkStoreIdentity() throws
    /// Validates the history, then applies what is pending, cut after `limit` when given.
    func migrate(limit: (set: String, version: Int)?) throws
}

extension MigrationRunner {
    /// Any store is the engine's own.
    package func checkStoreIdentity() throws {}

    /// Does what `policy` says when a store opens: nothing, validate the history, require it to be current, or
    /// migrate (to the end, or up to one version of one set).
    package func run(_ policy: MigrationPolicy) throws {
        switch policy {
        case .none: return
        case .validateOnly:
            try checkStoreIdentity()
            try plan.validate(try readHistory())
        case .requireCurrent:
            try checkStoreIdentity()
            try plan.status(try readHistory()).requireCurrent()
        case .migrate: try migrate(limit: nil)
        case .migrateUpTo(let version, let set):
            guard plan.sets.contains(where: { $0.name == set }) else {
                throw StoreError(.invalidInput, "no migration set named \(set)")
            }
            try migrate(limit: (set, version))
        }
    }
}
