/// How the change log stores a commit's changes.
package enum ChangeLogLayout: Sendable {
    /// One `_store_commits` row per commit, its changes in one binary payload (the default: measured
    /// cheapest, see docs/OBSERVATION.md).
    case payloadPerCommit
    /// Also one `_store_changes` row per changed row (the alternative that was measured; the table
    /// must exist). Kept for the measurement in `store-fixture measure-capture`.
    case rowPerChange
}
