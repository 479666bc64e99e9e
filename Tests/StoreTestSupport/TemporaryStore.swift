import Foundation
import ObservableStore

/// A fresh directory under the system's temporary directory, removed when `body` returns or throws.
public func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("observable-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Async twin of ``withTemporaryDirectory(_:)``; `body` runs on the caller's actor (`isolation`).
public func withTemporaryDirectory<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: (URL) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("observable-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// A store on a real WAL file in a fresh temporary directory; closed and deleted afterwards.
public func withTemporaryStore<T>(
    configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration(), _ body: (SQLiteStore, String) throws -> T
) throws -> T {
    try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: path, configuration: configuration)
        defer { store.close() }
        return try body(store, path)
    }
}

extension SQLiteStoreConfiguration {
    /// No change feed (`tracksChanges` false), for the tests that count the writes waiting for the writer's turn.
    /// Once this process's writes settle, the feed checks for a foreign write in the writer's turn; under load that
    /// check came late, queued behind a test's held write, and the count never read as the test's own writes alone
    /// (a CI run timed out waiting for `waitingWrites == 1`).
    public static var withoutChangeFeed: SQLiteStoreConfiguration {
        var configuration = SQLiteStoreConfiguration()
        configuration.tracksChanges = false
        return configuration
    }
}

/// Async twin of ``withTemporaryStore(configuration:_:)``; `body` runs on the caller's actor (`isolation`), so a
/// main-actor test can use main-actor models in it.
public func withTemporaryStore<T>(
    configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration(), isolation: isolated (any Actor)? = #isolation,
    _ body: (SQLiteStore, String) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: path, configuration: configuration)
        defer { store.close() }
        return try await body(store, path)
    }
}

/// Writes `files` (name → SQL) into a new folder `name` of `directory` and returns its URL.
public func writeMigrationFolder(_ files: [String: String], named name: String, in directory: URL) throws -> URL {
    let folder = directory.appendingPathComponent(name, isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (file, sql) in files {
        try Data(sql.utf8).write(to: folder.appendingPathComponent(file))
    }
    return folder
}
