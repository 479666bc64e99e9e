import Foundation
import Logging
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Handler errors reach the application (``SQLiteStoreConfiguration/listenerErrorHandler``) and the log, and
/// every form of `listen` returns a token.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ListenerFailureTests {
    struct Failure: Error, Equatable {
        let sequence: Int64
    }

    /// A configuration whose error handler and logger record into `failures` and `log`.
    private func configuration(_ failures: ReportedFailures, _ log: LogRecorder) -> SQLiteStoreConfiguration {
        var configuration = SQLiteStoreConfiguration()
        configuration.listenerErrorHandler = { name, error in failures.append((name, error)) }
        configuration.logger = Logger(label: "test") { _ in log }
        return configuration
    }

    @Test func aThrownHandlerErrorReachesTheErrorHandlerAndTheLog() throws {
        let failures = ReportedFailures()
        let log = LogRecorder()
        try withTemporaryStore(configuration: configuration(failures, log)) { store, _ in
            let recorder = EventRecorder()
            let token = store.listen("flaky", filter: .table("nodes")) { event in
                if event.sequence == 2 { throw Failure(sequence: 2) }
                recorder.record(event)
            }
            for index in 0..<3 { try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
            #expect(recorder.wait(for: 2))
            #expect(failures.wait(for: 1))
            #expect(failures.all.map(\.name) == ["flaky"])
            #expect(failures.all.first?.error as? Failure == Failure(sequence: 2))
            #expect(log.warnings(about: "flaky").count == 1)
            withExtendedLifetime(token) {}
        }
    }

    @Test func typedBoundAndOwnedListenersReportTheirErrorsToo() throws {
        let failures = ReportedFailures()
        let log = LogRecorder()
        try withTemporaryStore(configuration: configuration(failures, log)) { store, _ in
            let owner = Owner()
            let tokens = [
                store.listen("typed", to: NodeVO.self) { _ in throw Failure(sequence: 0) },
                store.listen("owned", owner: owner) { _, _ in throw Failure(sequence: 0) },
            ]
            // A bound value whose refetch fails (the table is gone) reports it.
            try store.write { tx in try tx.execute("CREATE TABLE doomed (id INTEGER PRIMARY KEY, name TEXT NOT NULL, x REAL NOT NULL, y REAL NOT NULL)") }
            let bound = try store.bindAndFire("bound", query: RecordQuery<Doomed>()) { _ in }
            try store.write { tx in try tx.execute("DROP TABLE doomed") }  // schema change: a refetch, which throws
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            // Each listener fails on its own thread: wait for all three (typed and owned fail once per commit).
            try waitUntil { Set(failures.all.map(\.name)) == ["typed", "owned", "bound"] }
            #expect(Set(failures.all.map(\.name)) == ["typed", "owned", "bound"])
            #expect(log.warnings(about: "bound").count >= 1)
            withExtendedLifetime((tokens, bound, owner)) {}
        }
    }

    @Test func aDurableListenersErrorIsReported() throws {
        let failures = ReportedFailures()
        let log = LogRecorder()
        try withTemporaryStore(configuration: configuration(failures, log)) { store, _ in
            let delivered = EventRecorder()
            let token = try store.listenDurably("mailer") { event in
                guard case .commit(let delivery) = event else { return }
                if delivered.all.isEmpty {
                    delivered.record(.commit(delivery.commit))
                    throw Failure(sequence: delivery.commit.sequence)
                }
                delivered.record(.commit(delivery.commit))
            }
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            #expect(delivered.wait(for: 2))  // delivered again after the failure
            #expect(failures.all.first?.name == "mailer")
            #expect(failures.all.first?.error as? Failure == Failure(sequence: 1))
            #expect(log.warnings(about: "mailer").count >= 1)
            withExtendedLifetime(token) {}
        }
    }

    @Test func withoutAnErrorHandlerAFailureIsOnlyLogged() throws {
        let log = LogRecorder()
        var configuration = SQLiteStoreConfiguration()
        configuration.logger = Logger(label: "test") { _ in log }
        try withTemporaryStore(configuration: configuration) { store, _ in
            let recorder = EventRecorder()
            let token = store.listen("flaky") { event in
                recorder.record(event)
                throw Failure(sequence: event.sequence ?? 0)
            }
            try store.repository(NodeVO.self).insert(NodeVO(name: "n", x: 0, y: 0))
            #expect(recorder.wait(for: 1))
            try waitUntil { log.warnings(about: "flaky").count == 1 }
            withExtendedLifetime(token) {}
        }
    }

    @Test func theOwnerFormReturnsATokenThatRemovesTheListener() throws {
        try withTemporaryStore { store, _ in
            let owner = Owner()
            let recorder = EventRecorder()
            let token = store.listen("owned", owner: owner, options: ListenerOptions(immediate: true)) { _, event in
                recorder.record(event)
            }
            #expect(token.name == "owned" && !token.isCancelled)
            try store.repository(NodeVO.self).insert(NodeVO(name: "a", x: 0, y: 0))
            #expect(recorder.all.count == 1)
            token.cancel()
            #expect(token.isCancelled)
            #expect(store.listenerNames.isEmpty)
            try store.repository(NodeVO.self).insert(NodeVO(name: "b", x: 0, y: 0))
            #expect(recorder.all.count == 1)
            withExtendedLifetime(owner) {}
        }
    }

    @Test func releasingTheOwnerFormsTokenLeavesTheListenerToTheOwner() throws {
        try withTemporaryStore { store, _ in
            var owner: Owner? = Owner()
            let recorder = EventRecorder()
            var token: ListenerToken? = store.listen("owned", owner: owner!, options: ListenerOptions(immediate: true)) { _, event in
                recorder.record(event)
            }
            let observed = WeakBox(token!)
            token = nil
            #expect(observed.object == nil)
            #expect(store.listenerNames == ["owned"])
            try store.repository(NodeVO.self).insert(NodeVO(name: "a", x: 0, y: 0))
            #expect(recorder.all.count == 1)
            owner = nil
            try store.repository(NodeVO.self).insert(NodeVO(name: "b", x: 0, y: 0))  // the listener finds its owner gone
            #expect(recorder.all.count == 1)
            #expect(store.listenerNames.isEmpty)
        }
    }
}

/// An owner for `listen(_:owner:)`.
private final class Owner: Sendable {}

/// A record of a table the test drops.
private struct Doomed: Record {
    typealias Key = Int64
    static let tableName = "doomed"
    var id: Int64?
    var name: String
}

/// The failures a ``SQLiteStoreConfiguration/listenerErrorHandler`` was told about.
typealias ReportedFailures = Recorder<(name: String, error: any Error)>

/// A swift-log handler that keeps every message, for checking what the store logs.
final class LogRecorder: LogHandler, @unchecked Sendable {
    // @unchecked: `messages` is guarded by `lock`; `metadata` and `logLevel` are set before use only.
    private let lock = NSLock()
    private var messages: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { messages.append((event.level, event.message.description, event.metadata ?? [:])) }
    }

    /// The warning messages logged about listener `name`.
    func warnings(about name: String) -> [String] {
        lock.withLock { messages.filter { $0.level == .warning && $0.metadata["listener"] == "\(name)" }.map(\.message) }
    }
}
