// The migrators' errors, the same on every engine.
extension StoreError {
    /// The database was migrated by newer code (`db`) than this one knows (`known`).
    public static func schemaTooNew(db: Int, known: Int, set: String = MigrationSet.storeSetName) -> StoreError {
        let setText = set == MigrationSet.storeSetName ? "" : " (migration set '\(set)')"
        return StoreError(
            .schemaTooNew,
            "schema \(Migration.format(db)) is newer than this code (knows \(Migration.format(known)))\(setText); "
                + "upgrade the code")
    }

    /// The history conflicts with the known file of `entry` (state ``MigrationStatus/State/changed`` or
    /// ``MigrationStatus/State/outOfOrder``): a ``StoreError/Code/migrationConflict`` naming the file and,
    /// for a changed one, both checksums and the `storectl migrate repair` command that accepts the edit.
    public static func migrationConflict(_ entry: MigrationStatus.Entry) -> StoreError {
        if entry.state == .outOfOrder { return migrationOutOfOrder(file: entry.fileName, laterApplied: nil) }
        return migrationChanged(
            file: entry.fileName, version: entry.version, recorded: entry.recordedChecksum ?? "?", current: entry.fileChecksum ?? "?")
    }

    /// `file` (version `version`) was changed after it was applied: the one message of the migrator, of
    /// ``migrationConflict(_:)`` and so of storectl.
    package static func migrationChanged(file: String, version: Int, recorded: String, current: String) -> StoreError {
        StoreError(
            .migrationConflict,
            "\(file) was changed after it was applied (history sha256 \(recorded.prefix(12))…, file \(current.prefix(12))…); "
                + "restore the file, or after review run `storectl migrate repair --accept \(Migration.format(version))`")
    }

    /// `file` is pending although a later version (`laterApplied`, when known) is applied.
    package static func migrationOutOfOrder(file: String, laterApplied: Int?) -> StoreError {
        let later = laterApplied.map(Migration.format) ?? "a later version"
        return StoreError(.migrationConflict, "\(file) is pending but \(later) is already applied (out of order)")
    }
}
