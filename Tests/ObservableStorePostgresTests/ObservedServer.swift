#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StorePostgres
import Synchronization
import Testing

/// A test database with the store's schema, and the writes a test makes on it as another program would (`psql`), or
/// as the store's own writer does.
struct ObservedServer {
    /// The database.
    let url: PostgresURL
    /// A connection of the test's own: `psql`.
    let psql: ServerConnection

    /// Runs `body` with a fresh database holding the store's schema (migrated by a store opened and closed here).
    static func with<T>(_ body: (ObservedServer) throws -> T) throws -> T {
        try TestServer.withDatabase { url in
            try PostgresStore(url: url.text, configuration: PostgresStoreConfiguration()).close()
            let connection = try ServerConnection.connect(url)
            defer { connection.close() }
            return try body(ObservedServer(url: url, psql: connection))
        }
    }

    /// The same, for an async test (`body` runs on the caller's actor).
    static func withAsync<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (ObservedServer) async throws -> T
    ) async throws -> T {
        guard let url = TestServer.url else { throw TestServer.unavailable }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try await ServerConnection.connect(url)
        defer { admin.close() }
        try await admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
        let database = url.with(database: name)
        try PostgresStore(url: database.text, configuration: PostgresStoreConfiguration()).close()
        let connection = try await ServerConnection.connect(database)
        defer { connection.close() }
        return try await body(ObservedServer(url: database, psql: connection))
    }

    /// Runs `body` while a store of its own listens to every commit (listener "all") into the log `body` gets.
    func withListeningStore<T>(_ body: (EventLog) throws -> T) throws -> T {
        let listening = try openStore()
        defer { listening.close() }
        let log = EventLog()
        let token = listening.listen("all") { log.record($0) }
        defer { token.cancel() }
        return try body(log)
    }

    /// Opens a store on the database.
    func openStore(_ configure: (inout PostgresStoreConfiguration) -> Void = { _ in }) throws -> PostgresStore {
        var configuration = PostgresStoreConfiguration()
        configure(&configuration)
        return try PostgresStore(url: url.text, configuration: configuration)
    }

    /// Runs `statements` in one transaction on `psql` (tagged with `origin`); returns the commit's sequence (nil when
    /// it wrote nothing).
    @discardableResult
    func commit(origin: String? = nil, _ statements: String...) throws -> Int64? {
        try psql.execute("BEGIN")
        if let origin { try psql.execute("SELECT set_config('observable_store.origin', $1, true)", [.text(origin)]) }
        for statement in statements { try psql.execute(statement) }
        try psql.execute("COMMIT")
        return try settle()
    }

    /// The sequence number of the commit `psql` just made (numbered first if it is still waiting), nil when it logged
    /// nothing: what the store's writer asks right after its COMMIT.
    func settle() throws -> Int64? {
        guard case .integer(let sequence) = try psql.query("SELECT _store_settle()").scalar else { return nil }
        return sequence
    }

    /// Commits `statements` as `store`'s own writer does: the commit, then its publication before returning.
    @discardableResult
    func commit(as store: PostgresStore, origin: String? = nil, _ statements: String...) throws -> Int64? {
        try psql.execute("BEGIN")
        if let origin { try psql.execute("SELECT set_config('observable_store.origin', $1, true)", [.text(origin)]) }
        for statement in statements { try psql.execute(statement) }
        try psql.execute("COMMIT")
        guard let sequence = try settle() else { return nil }
        store.didCommit(sequence: sequence)
        return sequence
    }

    /// The row of `table` whose `id` is `id`, as a fetch returns it.
    func fetchRow(_ table: String, id: DatabaseValue) throws -> Row? {
        try psql.query("SELECT * FROM \(table) WHERE id = $1", [id]).namedRows.first
    }
}

/// Events appended from any thread, waited for by the test.
final class EventLog: Sendable {
    private let events = Mutex<[StoreEvent]>([])

    /// Appends `event` (a listener's handler).
    func record(_ event: StoreEvent) { events.withLock { $0.append(event) } }

    /// Every event so far.
    var all: [StoreEvent] { events.withLock { $0 } }

    /// The commits so far.
    var commits: [Commit] { all.compactMap { if case .commit(let commit) = $0 { commit } else { nil } } }

    /// Waits until `count` commits arrived; throws after `seconds`.
    func waitForCommits(_ count: Int, seconds: Double = 10) throws {
        try waitUntil(seconds: seconds) { commits.count >= count }
    }
}

/// Durable events appended from any thread.
final class DurableLog: Sendable {
    private let events = Mutex<[DurableEvent]>([])

    /// Appends `event` (a durable listener's handler).
    func record(_ event: DurableEvent) { events.withLock { $0.append(event) } }

    /// Every event so far.
    var all: [DurableEvent] { events.withLock { $0 } }

    /// The sequences of the commits so far.
    var sequences: [Int64] { all.compactMap { if case .commit(let delivery) = $0 { delivery.commit.sequence } else { nil } } }
}
#endif
