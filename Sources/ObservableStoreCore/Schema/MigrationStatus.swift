import Foundation

/// Where each known migration stands in a store, and what the history holds that the code does not know.
public struct MigrationStatus: Sendable {
    /// The state of one migration.
    public enum State: String, Sendable {
        /// Applied, and the file is unchanged.
        case applied
        /// Not applied yet.
        case pending
        /// Applied, but the file changed since (checksum mismatch).
        case changed
        /// Pending although a later version is applied (out of order).
        case outOfOrder = "out_of_order"
        /// Applied by newer code: no such file here.
        case unknown
    }

    /// One migration, known or recorded.
    public struct Entry: Sendable {
        /// The migration set.
        public let set: String
        /// The version.
        public let version: Int
        /// The descriptive name (from the file, or from the history when there is no file).
        public let name: String
        /// The state.
        public let state: State
        /// When it was applied, if it was.
        public let appliedAt: Date?
        /// The checksum in the history, if applied.
        public let recordedChecksum: String?
        /// The checksum of the known file, if there is one.
        public let fileChecksum: String?
    }

    /// Every entry, by set (as configured) then version.
    public let entries: [Entry]

    /// The migrations not applied yet, in order.
    public var pending: [Entry] { entries.filter { $0.state == .pending } }
    /// Changed files and out-of-order pending files: the history conflicts with the code.
    public var conflicts: [Entry] { entries.filter { $0.state == .changed || $0.state == .outOfOrder } }
    /// Versions applied by newer code.
    public var unknown: [Entry] { entries.filter { $0.state == .unknown } }

    /// Throws unless the store is exactly at the latest known version of every set: the check of
    /// ``MigrationPolicy/requireCurrent``, for tools that opened a store with
    /// ``MigrationPolicy/none`` and want the same answer.
    ///
    /// In this order: a version applied by newer code throws ``StoreError/Code/schemaTooNew``; a changed
    /// or out-of-order file throws ``StoreError/Code/migrationConflict`` (see
    /// ``conflictError(for:)``); a pending file throws ``StoreError/Code/migrationNeeded``,
    /// naming the pending files.
    public func requireCurrent() throws {
        try requireMigratable()
        let pending = self.pending
        guard let first = pending.first else { return }
        let current = entries.filter { $0.set == first.set && $0.state == .applied }.map(\.version).max() ?? 0
        let latest = entries.filter { $0.set == first.set }.map(\.version).max() ?? 0
        let setText = first.set == MigrationSet.storeSetName ? "" : " (migration set '\(first.set)')"
        let files = pending.map { ($0.set == MigrationSet.storeSetName ? "" : $0.set + "/") + $0.fileName }
        throw StoreError(
            .migrationNeeded,
            "store is at \(Migration.format(current)), this code needs \(Migration.format(latest))\(setText); "
                + "pending: \(files.joined(separator: ", "))")
    }
}

extension MigrationStatus {
    /// Throws when this code cannot migrate the store: a version applied by newer code throws
    /// ``StoreError/Code/schemaTooNew``, then a changed or out-of-order file ``StoreError/Code/migrationConflict``.
    /// Pending files are fine: the check before applying them (or rehearsing them), on either engine.
    package func requireMigratable() throws {
        if let newest = unknown.last {
            let known = entries.filter { $0.set == newest.set && $0.state != .unknown }.map(\.version).max() ?? 0
            throw StoreError.schemaTooNew(db: newest.version, known: known, set: newest.set)
        }
        if let conflict = firstConflict { throw conflictError(for: conflict) }
    }

    /// The conflict the migrator reports first: in the first set that has one, a changed file, else a
    /// pending one below an applied version.
    public var firstConflict: Entry? {
        for set in entries.map(\.set) {
            let conflicts = self.conflicts.filter { $0.set == set }
            if let conflict = conflicts.first(where: { $0.state == .changed }) ?? conflicts.first { return conflict }
        }
        return nil
    }

    /// The ``StoreError/Code/migrationConflict`` error for `entry` (changed or out of
    /// order), in the migrator's words: an out-of-order file names the applied version above it.
    public func conflictError(for entry: Entry) -> StoreError {
        guard entry.state == .outOfOrder else { return StoreError.migrationConflict(entry) }
        let newest = entries.filter { $0.set == entry.set && [.applied, .changed].contains($0.state) }.map(\.version).max()
        return StoreError.migrationOutOfOrder(file: entry.fileName, laterApplied: newest)
    }

    /// Where every migration of `sets` stands, given the history rows (those of other sets are ignored).
    package init(sets: [MigrationSet], history: [(set: String, version: Int, name: String, checksum: String, appliedAt: Date?)]) {
        var entries: [Entry] = []
        for set in sets {
            let applied = Dictionary(
                history.filter { $0.set == set.name }.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
            let newest = applied.keys.max() ?? 0
            for migration in set.migrations {
                let row = applied[migration.version]
                let state: State =
                    if let row { row.checksum == migration.checksum ? .applied : .changed } else {
                        migration.version < newest ? .outOfOrder : .pending
                    }
                entries.append(
                    Entry(
                        set: set.name, version: migration.version, name: migration.name, state: state, appliedAt: row?.appliedAt,
                        recordedChecksum: row?.checksum, fileChecksum: migration.checksum))
            }
            for row in applied.values.sorted(by: { $0.version < $1.version }) where row.version > set.latestVersion {
                entries.append(
                    Entry(
                        set: set.name, version: row.version, name: row.name, state: .unknown, appliedAt: row.appliedAt,
                        recordedChecksum: row.checksum, fileChecksum: nil))
            }
        }
        self.entries = entries
    }
}

extension MigrationStatus.Entry {
    /// The file name, e.g. `0003_add_tags.sql`.
    package var fileName: String { "\(Migration.format(version))_\(name).sql" }
}
