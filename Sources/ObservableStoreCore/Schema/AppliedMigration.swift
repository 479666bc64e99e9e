import Foundation

/// One row of the migration history (`_store_migrations`).
public struct AppliedMigration: Sendable, Equatable {
    /// The migration set's name ("store" for the library's own).
    public let set: String
    /// The migration's version.
    public let version: Int
    /// The migration's descriptive name.
    public let name: String
    /// The checksum recorded when it was applied.
    public let checksum: String
    /// When it was applied.
    public let appliedAt: Date
    /// How long it took, in milliseconds.
    public let durationMilliseconds: Int
    /// Who applied it, e.g. "ObservableStore 0.1.0".
    public let appliedBy: String

    /// A history row with these values.
    package init(set: String, version: Int, name: String, checksum: String, appliedAt: Date, durationMilliseconds: Int, appliedBy: String) {
        self.set = set
        self.version = version
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
        self.durationMilliseconds = durationMilliseconds
        self.appliedBy = appliedBy
    }

    /// The history's columns, in the order ``init(historyRow:)`` reads them: `SELECT \(columns) FROM <history>`.
    package static let historyColumns = "set_name, version, name, checksum, applied_at, duration_ms, applied_by"

    /// A history row as either engine returns it (the columns of ``historyColumns``).
    package init(historyRow row: Row) {
        self.init(
            set: row.value("set_name") ?? "", version: row.value("version") ?? 0, name: row.value("name") ?? "",
            checksum: row.value("checksum") ?? "", appliedAt: row.value("applied_at") ?? Date(timeIntervalSince1970: 0),
            durationMilliseconds: row.value("duration_ms") ?? 0, appliedBy: row.value("applied_by") ?? "")
    }
}
