#if PostgreSQL
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ObservableStoreCore
import PostgresNIO
import Synchronization

/// One connection to a PostgreSQL server, used synchronously: each call sends its statement and waits for the
/// answer (postgres-nio's event loop does the I/O). One thread at a time uses a connection; the store's pool hands
/// them out. Calls must not come from an event loop thread.
package final class ServerConnection: @unchecked Sendable {
    /// The server and database this connection is to.
    package let url: PostgresURL
    let connection: PostgresConnection
    let logger: Logger
    /// The id postgres-nio logs a connection with.
    private static let nextID = Atomic<Int>(0)

    /// What the session's `observable_store.origin` holds, as far as committed writes set it ("" for none): a write
    /// sets it only when its origin differs. Used by the one thread that holds the connection.
    package var sessionOrigin = ""

    /// Whether the connection closed, and the statement waiting for its answer (one at a time), woken by the close.
    private let closeWatch = Mutex<(isClosed: Bool, waiter: DispatchSemaphore?)>((false, nil))

    private init(url: PostgresURL, connection: PostgresConnection, logger: Logger) {
        self.url = url
        self.connection = connection
        self.logger = logger
        connection.closeFuture.whenComplete { [weak self] _ in self?.wakeWaiterOnClose() }
    }

    private func wakeWaiterOnClose() {
        let waiter = closeWatch.withLock { watch in
            watch.isClosed = true
            return watch.waiter
        }
        waiter?.signal()
    }

    /// Connects to `url`. Throws ``StoreError/Code/unavailable`` (with the reason: refused, timed out, login
    /// refused) or ``StoreError/Code/notFound`` (no such database).
    package static func connect(_ url: PostgresURL, logger: Logger = Logger(label: "ObservableStore.postgres")) throws
        -> ServerConnection
    {
        let id = nextID.add(1, ordering: .relaxed).newValue
        do {
            var configuration = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                tls: try tls(for: url))
            configuration.options.connectTimeout = .seconds(Int64(url.connectTimeoutSeconds))
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger
            ).wait()
            return ServerConnection(url: url, connection: connection, logger: logger)
        } catch let error as StoreError {
            throw error
        } catch {
            throw ServerError.connecting(to: url, error)
        }
    }

    /// The TLS contexts made so far, by mode and trusted authorities (loading the system's trust store takes
    /// milliseconds: once per process).
    private static let tlsContexts = Mutex<[String: NIOSSLContext]>([:])

    /// What `url`'s `sslmode` and `sslrootcert` ask of postgres-nio.
    private static func tls(for url: PostgresURL) throws -> PostgresConnection.Configuration.TLS {
        let verification: CertificateVerification
        switch url.tlsMode {
        case .disable: return .disable
        case .prefer: verification = .none
        case .require: verification = url.rootCertificatePath == nil ? .none : .noHostnameVerification
        case .verifyCA: verification = .noHostnameVerification
        case .verifyFull: verification = .fullVerification
        }
        let key = "\(verification) \(url.rootCertificatePath ?? "system")"
        let context = try tlsContexts.withLock { contexts in
            if let context = contexts[key] { return context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = verification
            if let path = url.rootCertificatePath { configuration.trustRoots = .file(path) }
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                let roots = url.rootCertificatePath.map { "sslrootcert \($0)" } ?? "the system's trust store"
                throw StoreError(.invalidInput, "cannot use \(roots) for TLS: \(error)")
            }
            contexts[key] = context
            return context
        }
        return url.tlsMode == .prefer ? .prefer(context) : .require(context)
    }

    /// Whether the connection is closed (by ``close()``, the server, or the network).
    package var isClosed: Bool { connection.isClosed }

    /// Runs one statement with `values` bound to `$1`, `$2`, … and returns its rows.
    @discardableResult
    package func query(_ sql: String, _ values: [DatabaseValue] = []) throws -> ServerResult {
        // A statement sent on a connection the server already closed is never answered (postgres-nio 1.33.2 with a
        // listener registered): fail at once instead.
        guard !connection.isClosed else {
            throw StoreError(.unavailable, "the connection to \(url) was lost", sql: sql)
        }
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { ServerValueCodec.bind(value, into: &bindings) }
        do {
            let result = try answer(to: connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger), sql: sql)
            return try ServerResult(result)
        } catch let error as StoreError {
            throw error
        } catch {
            throw ServerError.failed(sql: sql, error, url: url)
        }
    }

    /// Waits for `future`, or for the connection to close first: a statement the server never answers because the
    /// connection died (postgres-nio 1.33.2 leaves it pending when a listener is registered) fails instead of
    /// waiting forever.
    private func answer<T: Sendable>(to future: EventLoopFuture<T>, sql: String) throws -> T {
        let settled = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        future.whenComplete { result in
            outcome.withLock { $0 = result }
            settled.signal()
        }
        let closedAlready = closeWatch.withLock { watch in
            watch.waiter = settled
            return watch.isClosed
        }
        if closedAlready { settled.signal() }
        settled.wait()
        closeWatch.withLock { $0.waiter = nil }
        if let result = outcome.withLock({ $0 }) { return try result.get() }
        throw StoreError(.unavailable, "the connection to \(url) was lost", sql: sql)
    }

    /// Runs one statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    package func execute(_ sql: String, _ values: [DatabaseValue] = []) throws -> Int {
        try query(sql, values).affectedRows
    }

    /// `SET LOCAL lock_timeout` in the open transaction: each later statement waits at most `timeout` for a lock,
    /// then fails (SQLSTATE 55P03, ``StoreError/Code/busy``). Whole milliseconds, at least 1 (0 would wait for ever).
    package func limitLockWaits(to timeout: Duration) throws {
        let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        try execute("SELECT set_config('lock_timeout', $1, true)", [.text("\(milliseconds)ms")])
    }

    /// Runs a script of several statements (a migration file) as one command, inside the caller's transaction.
    package func script(_ sql: String) throws {
        guard !sql.contains("$store_script$") else {
            throw StoreError(.invalidInput, "a script cannot contain the text $store_script$")
        }
        try execute("DO $store_migration$ BEGIN EXECUTE $store_script$\(sql)$store_script$; END $store_migration$")
    }

    /// Starts listening on `channel`: `handler` gets each notification's payload, on the connection's event loop
    /// (it must return quickly). Notifications arrive only while the connection is open and not in a transaction.
    /// postgres-nio sends the `LISTEN` itself, ahead of any later statement: once this returns, it is in effect.
    package func listen(on channel: String, _ handler: @escaping @Sendable (String) -> Void) throws {
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        try execute("SELECT 1")
    }

    /// Runs `body` in a transaction opened with `begin` (e.g. `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`) and
    /// commits when it returns; when `body` or COMMIT throws, rolls back (``rollbackOrClose()``) and rethrows.
    package func inTransaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            rollbackOrClose()
            throw error
        }
    }

    /// Ends the open transaction with ROLLBACK after a failure; when even that fails, closes the connection, so that it
    /// never goes back to a pool still inside a transaction.
    package func rollbackOrClose() {
        guard !isClosed else { return }
        do {
            try execute("ROLLBACK")
        } catch {
            close()
        }
    }

    /// Calls `handler` once when the connection closes, for whatever reason.
    package func onClose(_ handler: @escaping @Sendable () -> Void) {
        connection.closeFuture.whenComplete { _ in handler() }
    }

    /// Closes the connection; later calls fail with ``StoreError/Code/unavailable``.
    package func close() {
        guard !connection.isClosed else { return }
        try? connection.close().wait()
    }

    deinit {
        if !connection.isClosed { connection.close().whenComplete { _ in } }
    }

    /// `name` as a quoted SQL identifier.
    package static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a quoted SQL string literal.
    package static func quoteLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
#endif
