import Foundation
import ObservableStoreCore

/// A copy of a store taken before a migration run: `<db>.pre-NNNN.bak` before the library's set,
/// `<db>.pre-SET-NNNN.bak` before a service set, where NNNN is the first version the run applied.
///
/// Only files in the database's folder whose names follow this pattern for this database's file name
/// exactly count: `app.sqlite2.pre-0004.bak`, `app.sqlite.pre-0004.bak.old` or a directory are never
/// a backup of `app.sqlite`. For example:
///
/// ```swift
/// for backup in try SQLiteStore.migrationBackups(of: "app.sqlite") {
///     print(backup.path, backup.set, backup.version, backup.size, backup.date)
/// }
/// try SQLiteStore.pruneMigrationBackups(of: "app.sqlite", keeping: 1)
/// ```
public struct MigrationBackup: Sendable, Hashable {
    /// The backup file's path: the database path's folder (as given, relative or not) and the backup's name.
    public let path: String
    /// The migration set whose migration the run applied first (``/ObservableStoreCore/MigrationSet/storeSetName`` for the library's).
    public let set: String
    /// The first version of `set` the run applied; the backup holds the store as it was before it.
    public let version: Int
    /// The file's size in bytes.
    public let size: Int64
    /// When the file was last written (the backup's time). Pruning goes by ``version``, not by this date.
    public let date: Date

    /// The path of the backup taken before `set`'s `version` is applied to the database at `databasePath`.
    static func path(for databasePath: String, set: String, version: Int) -> String {
        let setPart = set == MigrationSet.storeSetName ? "" : "\(set)-"
        return "\(databasePath).pre-\(setPart)\(Migration.format(version)).bak"
    }

    /// The set and version in `fileName` if it is a backup name of the database file `databaseFileName`.
    static func parse(_ fileName: String, databaseFileName: String) -> (set: String, version: Int)? {
        let prefix = databaseFileName + ".pre-"
        let suffix = ".bak"
        guard fileName.count > prefix.count + suffix.count, fileName.hasPrefix(prefix), fileName.hasSuffix(suffix) else {
            return nil
        }
        let middle = fileName.dropFirst(prefix.count).dropLast(suffix.count)
        let digits = middle.split(separator: "-", omittingEmptySubsequences: false).last ?? ""
        guard digits.allSatisfy(\.isASCII), let version = Int(digits), version >= 1, Migration.format(version) == digits else {
            return nil
        }
        guard digits.count < middle.count else { return (MigrationSet.storeSetName, version) }
        let set = String(middle.dropLast(digits.count + 1))
        // A backup of a backup (`app.sqlite.pre-0004.bak.pre-0005.bak`) belongs to the other file; and the
        // library's set is never spelled out.
        // Nor is a "set" holding `.pre` or `.bak`: `app.sqlite.pre-x.pre-0004.bak` is a backup of another store,
        // `app.sqlite.pre-x`, not of set `x.pre` of this one.
        guard !set.isEmpty, !set.contains(".pre"), !set.contains(".bak"), set != MigrationSet.storeSetName else {
            return nil
        }
        return (set, version)
    }

    /// The backups of the database at `databasePath`, by set (the library's first) and version, oldest first.
    static func all(of databasePath: String) throws -> [MigrationBackup] {
        let folder = (databasePath as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        let databaseFileName = (databasePath as NSString).lastPathComponent
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw StoreError(.notFound, "cannot list the folder \(directory) of \(databasePath): \(error.localizedDescription)")
        }
        var backups: [MigrationBackup] = []
        for name in names {
            guard let parsed = parse(name, databaseFileName: databaseFileName) else { continue }
            let path = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
            // Attributes of the entry itself (a symbolic link is not followed): only regular files count.
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            backups.append(
                MigrationBackup(
                    path: path, set: parsed.set, version: parsed.version, size: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                    date: attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)))
        }
        func order(_ backup: MigrationBackup) -> (Int, String, Int) {
            (backup.set == MigrationSet.storeSetName ? 0 : 1, backup.set, backup.version)
        }
        return backups.sorted { order($0) < order($1) }
    }

    /// Removes all but the `count` newest backups of each set (by version), with their `-wal`, `-shm` and
    /// `-journal` files; returns the removed ones. The caller holds the migration lock.
    static func prune(of databasePath: String, keeping count: Int) throws -> [MigrationBackup] {
        try checkKeepCount(count)
        var removed: [MigrationBackup] = []
        for backup in beyond(count, of: try all(of: databasePath)) {
            do {
                try FileManager.default.removeItem(atPath: backup.path)
            } catch {
                throw StoreError(.internal, "cannot remove the migration backup \(backup.path): \(error.localizedDescription)")
            }
            for sidecar in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: backup.path + sidecar) }
            removed.append(backup)
        }
        return removed
    }

    /// The backups of `backups` (as ``all(of:)`` orders them) beyond the `count` newest of each set, in that order.
    package static func beyond(_ count: Int, of backups: [MigrationBackup]) -> [MigrationBackup] {
        let kept = Set(Dictionary(grouping: backups, by: \.set).values.flatMap { $0.suffix(max(count, 0)) })
        return backups.filter { !kept.contains($0) }
    }

    /// Throws ``/ObservableStoreCore/StoreError/Code/invalidInput`` for a negative number of backups to keep.
    static func checkKeepCount(_ count: Int) throws {
        guard count >= 0 else {
            throw StoreError(.invalidInput, "the number of migration backups to keep must be 0 or more, not \(count)")
        }
    }
}
