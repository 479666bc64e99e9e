import Foundation
import ObservableStore
import Testing

// Main-actor twins of withTemporaryStore and waitUntil, for tests of models that change on the main actor. The
// plain helpers are not isolated: a main-actor test cannot hand them a closure that reads main-actor state.

/// A store on a real WAL file in a fresh temporary directory, closed and deleted afterwards; `body` runs on the
/// main actor.
@MainActor
public func withMainActorStore<T>(
    configuration: StoreConfiguration = StoreConfiguration(), _ body: @MainActor (Store, String) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("observable-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("store.sqlite").path
    let store = try Store(path: path, configuration: configuration)
    defer { store.close() }
    return try await body(store, path)
}

/// Polls `condition` on the main actor every millisecond, sleeping in between (so that the main actor runs what
/// waits for it); throws ``TimedOut`` after `timeout` seconds.
@MainActor
public func waitOnMainActor(
    timeout: Double = defaultWaitSeconds, _ what: @autoclosure () -> String = "the condition",
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TimedOut(what(), seconds: timeout, sourceLocation: sourceLocation) }
        try await Task.sleep(for: .milliseconds(1))
    }
}
