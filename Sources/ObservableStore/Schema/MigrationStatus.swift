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
}
