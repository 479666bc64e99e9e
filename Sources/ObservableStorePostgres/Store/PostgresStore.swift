#if PostgreSQL
import Foundation
import Logging
import ObservableStoreCore
import StorePostgres

/// A persistent record store on a PostgreSQL database: the same records, queries, transactions, listeners,
/// bind-and-fire and durable listeners as the SQLite engine's `SQLiteStore`, for services on several hosts.
///
/// Every writer (this library on any host, `psql`, another language) is captured by triggers; commits get a
/// gap-free sequence in commit order; each store reads the change log on a dedicated `LISTEN` connection and
/// delivers every commit to its listeners (docs/POSTGRES.md).
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://app@db.internal:5432/app")
/// let nodes = store.repository(NodeVO.self)
/// let node = try nodes.insert(NodeVO(name: "Start", x: 0, y: 0))
/// ```
public final class PostgresStore: Sendable {
    /// The library's version, recorded in the migration history (`applied_by`).
    public static let libraryVersion = "0.1.0"
    /// The database, with any password hidden.
    public let url: String
    /// The configuration the store was opened with.
    public let configuration: PostgresStoreConfiguration
    /// The parsed URL.
    let serverURL: PostgresURL
    /// The connections writes and reads use.
    let pool: ServerConnectionPool

    /// How many calls wait for a pooled connection now (for tests).
    package var callsWaitingForAConnection: Int { pool.waitingCount }
    /// The named listeners and streams.
    let registry: ListenerRegistry
    /// Each table's column types, for binding records.
    let tableColumns = TableColumnsCache()
    /// The publisher, the change feed and what they read the log with (PostgresStore+Publishing.swift).
    let observation: PostgresObservation
    /// Whether the database numbers commits after they commit (migration 0002: tickets and stampers), rather than
    /// stamping each under the head row's lock at COMMIT (0001 alone).
    let numbersCommitsAfterCommit: Bool

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`) and applies the store's
    /// migrations (``PostgresStoreConfiguration/migrationPolicy``; docs/POSTGRES.md, "Migrations").
    ///
    /// Throws ``/ObservableStoreCore/StoreError/Code/unavailable`` when the server cannot be reached or refuses the
    /// login, ``/ObservableStoreCore/StoreError/Code/notFound`` when the database does not exist,
    /// ``/ObservableStoreCore/StoreError/Code/invalidInput`` for a malformed URL,
    /// ``/ObservableStoreCore/StoreError/Code/notAStore`` for a database without the store's schema (when the
    /// migration policy did not install it), and the migrator's errors
    /// (``/ObservableStoreCore/StoreError/Code/schemaTooNew``, ``/ObservableStoreCore/StoreError/Code/migrationConflict``,
    /// ``/ObservableStoreCore/StoreError/Code/migrationNeeded``).
    public init(url: String, configuration: PostgresStoreConfiguration = PostgresStoreConfiguration()) throws {
        var serverURL = try PostgresURL(url)
        if let lockTimeout = configuration.lockTimeout {
            serverURL.sessionSettings["lock_timeout"] = ServerConnection.lockTimeoutValue(lockTimeout)
        }
        self.serverURL = serverURL
        self.url = serverURL.description
        self.configuration = configuration
        self.pool = ServerConnectionPool(url: serverURL, maximum: configuration.maximumConnectionCount, logger: configuration.logger)
        let context = DeliveryContext(spinWindow: configuration.deliverySpinWindow) { true }
        let registry = ListenerRegistry(
            context: context, logger: configuration.logger, errorHandler: configuration.listenerErrorHandler)
        self.registry = registry
        do {
            let pool = self.pool
            (self.observation, self.numbersCommitsAfterCommit) = try pool.withConnection { connection in
                try PostgresMigrator(connection: connection, configuration: configuration).open()
                // Without migrating (policy .none), a database may hold no store at all: say so, as SQLite's SQLiteStore does.
                guard try connection.query("SELECT to_regclass('_store_head') IS NOT NULL").scalar == .integer(1) else {
                    throw StoreError(.notAStore, "\(serverURL) has no store schema (no _store_head); open it with migrationPolicy .migrate")
                }
                let numbersAfterCommit = try connection.query("SELECT to_regproc('_store_settle') IS NOT NULL").scalar == .integer(1)
                let observation = try PostgresObservation(
                    url: serverURL, registry: registry, configuration: configuration, stampsWaitingCommits: numbersAfterCommit,
                    on: connection)
                return (observation, numbersAfterCommit)
            }
            tableColumns.removeAll()
        } catch {
            pool.close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Closes every connection and ends every change sequence.
    public func close() {
        observation.stop()
        registry.close()
        pool.close()
    }
}
#endif
