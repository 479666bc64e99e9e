import Foundation
import ObservableStoreCore
import StoreTestSupport
import Testing

/// The conformance cases, written once over ``ConformanceEngine``: `SQLiteConformanceTests` and
/// `PostgresConformanceTests` call each of them. A case opens its own store (or several, on the same location) and
/// closes it; where an engine differs, it asks ``EngineDifference/of(_:)``.
enum ConformanceCases {
    /// Opens `engine`'s store, runs `body` with it, and closes it.
    static func withStore<E: ConformanceEngine, T>(_ engine: E, _ body: (E.Store) throws -> T) throws -> T {
        let store = try engine.open()
        defer { store.close() }
        return try body(store)
    }

    /// Async twin of ``withStore(_:_:)``.
    static func withStore<E: ConformanceEngine, T>(
        _ engine: E, isolation: isolated (any Actor)? = #isolation, _ body: (E.Store) async throws -> T
    ) async throws -> T {
        let store = try engine.open()
        defer { store.close() }
        return try await body(store)
    }

    /// Registers a listener `name` that records every event it receives (on its delivery thread).
    static func record<S: RecordStore>(
        _ store: S, _ name: String = "recorder", filter: ChangeFilter = .all
    ) -> (EventRecorder, ListenerToken) {
        let recorder = EventRecorder()
        let token = store.listen(name, filter: filter, options: ListenerOptions()) { recorder.record($0) }
        return (recorder, token)
    }

    /// Waits until `recorder` holds `count` commits; throws ``TimedOut`` naming `what`.
    static func waitForCommits(
        _ recorder: EventRecorder, _ count: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try waitUntil("\(what) (\(count) commits, got \(recorder.commits.count))", sourceLocation: sourceLocation) {
            recorder.commits.count >= count
        }
    }

    /// A node named `name` at (`x`, 0).
    static func node(_ name: String, x: Double = 0) -> NodeVO { NodeVO(name: name, x: x, y: 0) }

    /// Inserts one node per name, each in a write of its own; returns them with their keys.
    @discardableResult
    static func insertNodes<S: RecordStore>(_ store: S, _ names: [String], origin: String? = nil) throws -> [NodeVO] {
        try names.map { name in try store.write(origin: origin) { try $0.insert(node(name)) } }
    }

    /// Inserts one node per name, each in a write of its own; returns the commits' sequences.
    static func insertNodesReturningSequences<S: RecordStore>(_ store: S, _ names: [String]) throws -> [Int64] {
        try names.map { name in
            let committed = try store.writeReturningCommit(origin: nil) { tx in _ = try tx.insert(node(name)) }
            guard let sequence = committed.sequence else { throw StoreError(.internal, "no sequence for the insert of \(name)") }
            return sequence
        }
    }
}

extension Change {
    /// "op table key", e.g. "delete nodes 3", for compact assertions.
    var summary: String {
        "\(operation.rawValue) \(table) \(key.map(\.description).joined(separator: ","))"
    }
}
