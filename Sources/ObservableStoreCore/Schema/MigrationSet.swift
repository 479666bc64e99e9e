import Foundation

/// A numbered series of migrations recorded under one name in the history: the library's own
/// (`"store"`: `nodes`, `user_info`) or an embedding service's, for its own tables.
///
/// Numbers must run 1, 2, 3… with no gap or duplicate; each set is numbered independently.
///
/// For example:
///
/// ```swift
/// let billing = try MigrationSet(name: "billing", migrations: [
///     Migration(version: 1, name: "create_invoices", sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL NOT NULL);"),
/// ])
/// var configuration = SQLiteStoreConfiguration()
/// configuration.migrationSets = [billing]
/// ```
public struct MigrationSet: Sendable {
    /// The name of the library's own set.
    public static let storeSetName = "store"

    /// The set's name in the history (`_store_migrations.set_name`).
    public let name: String
    /// The migrations, by increasing version.
    public let migrations: [Migration]

    /// Makes a set, checking that versions run 1, 2, 3… with no gap or duplicate.
    public init(name: String, migrations: [Migration]) throws {
        guard !name.isEmpty else { throw StoreError(.invalidInput, "a migration set needs a name") }
        let sorted = migrations.sorted { $0.version < $1.version }
        for (index, migration) in sorted.enumerated() where migration.version != index + 1 {
            let previous = index > 0 ? sorted[index - 1] : nil
            if let previous, previous.version == migration.version {
                throw StoreError(
                    .migrationConflict,
                    "migration set \(name): duplicate version \(Migration.format(migration.version)) "
                        + "(\(previous.id).sql and \(migration.id).sql)")
            }
            throw StoreError(
                .migrationConflict,
                "migration set \(name): \(migration.id).sql follows \(previous.map { "\($0.id).sql" } ?? "nothing"); "
                    + "expected version \(Migration.format(index + 1)) (numbers must be contiguous from 0001)")
        }
        self.name = name
        self.migrations = sorted
    }

    /// Loads every `NNNN_name.sql` file of `directory` at run time (other files are ignored).
    public init(name: String, directory: URL) throws {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
        } catch {
            throw StoreError(.notFound, "migration set \(name): cannot read \(directory.path)")
        }
        let migrations = try files.map { file in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(file).path) else {
                throw StoreError(.notFound, "migration set \(name): cannot read \(file)")
            }
            return try Migration(fileName: file, sql: String(decoding: data, as: UTF8.self))
        }
        try self.init(name: name, migrations: migrations)
    }

    /// The highest version in the set (0 when empty).
    public var latestVersion: Int { migrations.last?.version ?? 0 }
}

extension [MigrationSet] {
    /// The migration `version` of the set named `set`, for `acceptMigrationChange` on either engine; throws
    /// ``StoreError/Code/notFound`` naming both when no known set has it.
    package func migration(_ version: Int, of set: String) throws -> Migration {
        guard let migration = first(where: { $0.name == set })?.migrations.first(where: { $0.version == version }) else {
            throw StoreError(.notFound, "no migration \(Migration.format(version)) in set \(set)")
        }
        return migration
    }
}
