import Foundation

/// A store's migration sets judged against its history: what both engines' migrators decide before they write —
/// where each migration stands, whether this code can migrate the store at all, and which files are pending, in the
/// order they apply. An engine supplies the history and the SQL; the decisions are these, the same on both.
package struct MigrationPlan: Sendable {
    /// One row of the history table (`_store_migrations`).
    package struct HistoryRow: Sendable {
        /// The migration set.
        package var set: String
        /// The version.
        package var version: Int
        /// The descriptive name.
        package var name: String
        /// The file's checksum when it was applied.
        package var checksum: String
        /// When it was applied, when the engine read it.
        package var appliedAt: Date?

        /// A history row.
        package init(set: String, version: Int, name: String, checksum: String, appliedAt: Date? = nil) {
            self.set = set
            self.version = version
            self.name = name
            self.checksum = checksum
            self.appliedAt = appliedAt
        }
    }

    /// The sets, in apply order: the engine's own, then the service's.
    package let sets: [MigrationSet]

    /// The plan of `sets`.
    package init(sets: [MigrationSet]) {
        self.sets = sets
    }

    /// Where every migration of the sets stands, given `history` (rows of other sets are ignored).
    package func status(_ history: [HistoryRow]) -> MigrationStatus {
        MigrationStatus(sets: sets, history: history.map { ($0.set, $0.version, $0.name, $0.checksum, $0.appliedAt) })
    }

    /// Throws for a newer schema (``StoreError/Code/schemaTooNew``), a changed applied file or a pending file below
    /// an applied one (``StoreError/Code/migrationConflict``), or a history row no file can have. History rows of
    /// sets this code does not know (another service's) are left alone.
    package func validate(_ history: [HistoryRow]) throws {
        try status(history).requireMigratable()
        for row in history where row.version < 1 && sets.contains(where: { $0.name == row.set }) {
            throw StoreError(.migrationConflict, "the history of set \(row.set) holds version \(row.version), which no file can have")
        }
    }

    /// The migrations not applied yet, in apply order (set by set), cut after version `limit.version` of set
    /// `limit.set`.
    package func pending(_ history: [HistoryRow], limit: (set: String, version: Int)?) -> [(MigrationSet, Migration)] {
        var work: [(MigrationSet, Migration)] = []
        for set in sets {
            let applied = Set(history.filter { $0.set == set.name }.map(\.version))
            for migration in set.migrations where !applied.contains(migration.version) {
                if let limit, limit.set == set.name, migration.version > limit.version { break }
                work.append((set, migration))
            }
            if let limit, limit.set == set.name { break }
        }
        return work
    }
}
