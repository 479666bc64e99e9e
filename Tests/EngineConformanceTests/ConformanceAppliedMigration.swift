/// An engine's record of one applied migration.
protocol ConformanceAppliedMigration {
    /// The migration set (the library's own: "store").
    var set: String { get }
    /// Its version within the set.
    var version: Int { get }
    /// Its file name without the extension.
    var name: String { get }
    /// Its checksum.
    var checksum: String { get }
}
