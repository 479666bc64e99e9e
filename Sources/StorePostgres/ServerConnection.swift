#if PostgreSQL
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ObservableStoreCore
import PostgresNIO
import Synchronization

/// One connection to a PostgreSQL server. Each statement has two forms: `async` (the caller is suspended until the
/// answer comes; no thread waits) and blocking (the calling thread waits; postgres-nio's event loop does the I/O, so
/// blocking calls must not come from an event loop thread). One caller at a time uses a connection; the store's pool
/// hands them out.
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

    /// Whether the connection closed, and the statement waiting for its answer (one at a time), told of the close.
    private let closeWatch = Mutex<(isClosed: Bool, waiter: (@Sendable () -> Void)?)>((false, nil))

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
        waiter?()
    }

    /// Connects to `url`, blocking the calling thread: to its first host that accepts the login and a session of its
    /// ``PostgresURL/SessionTarget``. Throws ``StoreError/Code/unavailable`` (with each host's reason: refused, timed
    /// out, login refused, read-only) or ``StoreError/Code/notFound`` (no such database).
    package static func connect(_ url: PostgresURL, logger: Logger = Logger(label: "ObservableStore.postgres")) throws
        -> ServerConnection
    {
        var failures: [StoreError] = []
        for host in url.hosts {
            do {
                let connection = ServerConnection(url: url, connection: try connecting(to: url, host: host, logger: logger).wait(), logger: logger)
                guard let check = sessionCheck(for: url.sessionTarget) else { return connection }
                if let refusal = check.refusal(try? connection.query(check.sql).scalar) {
                    connection.close()
                    failures.append(StoreError(.unavailable, "\(url.only(host)): \(refusal)"))
                    continue
                }
                return connection
            } catch {
                failures.append(connectError(error, url: url.only(host)))
            }
        }
        throw combined(failures, url: url)
    }

    /// Connects to `url`, the caller suspended meanwhile; throws as the blocking form does.
    nonisolated(nonsending) package static func connect(
        _ url: PostgresURL, logger: Logger = Logger(label: "ObservableStore.postgres")
    ) async throws
        -> ServerConnection
    {
        var failures: [StoreError] = []
        for host in url.hosts {
            do {
                let connection = ServerConnection(
                    url: url, connection: try await connecting(to: url, host: host, logger: logger).get(), logger: logger)
                guard let check = sessionCheck(for: url.sessionTarget) else { return connection }
                if let refusal = check.refusal(try? await connection.query(check.sql).scalar) {
                    connection.close()
                    failures.append(StoreError(.unavailable, "\(url.only(host)): \(refusal)"))
                    continue
                }
                return connection
            } catch {
                failures.append(connectError(error, url: url.only(host)))
            }
        }
        throw combined(failures, url: url)
    }

    /// The query that tells whether a server gives sessions of `target`, and what its answer refuses (nil: accepted);
    /// nil when any server will do.
    private static func sessionCheck(for target: PostgresURL.SessionTarget) -> (sql: String, refusal: (DatabaseValue?) -> String?)? {
        switch target {
        case .any:
            return nil
        case .readWrite:
            return ("SHOW transaction_read_only", { answer in
                switch answer {
                case .text("off")?: nil
                case nil: "it did not answer SHOW transaction_read_only"
                default: "its sessions are read-only (a standby?)"
                }
            })
        case .primary:
            return ("SELECT pg_is_in_recovery()", { answer in
                switch answer {
                case .integer(0)?: nil
                case nil: "it did not answer SELECT pg_is_in_recovery()"
                default: "it is in recovery (a standby)"
                }
            })
        }
    }

    /// The error of a connection that no host of `url` accepted: the one host's error as it is, or each host's reason
    /// on one line (``StoreError/Code/notFound`` when no host has the database, else ``StoreError/Code/unavailable``).
    private static func combined(_ failures: [StoreError], url: PostgresURL) -> StoreError {
        if failures.count == 1, url.hosts.count == 1 { return failures[0] }
        let code: StoreError.Code = failures.allSatisfy { $0.code == .notFound } ? .notFound : .unavailable
        let reasons = failures.map(\.message).joined(separator: "; ")
        return StoreError(code, "no host of \(url) accepted a \(url.sessionTarget.rawValue) session: \(reasons)")
    }

    /// Starts connecting to `host` of `url`.
    private static func connecting(to url: PostgresURL, host: PostgresURL.Host, logger: Logger) throws -> EventLoopFuture<PostgresConnection> {
        var configuration = PostgresConnection.Configuration(
            host: host.name, port: host.port, username: url.user, password: url.password, database: url.database,
            tls: try tls(for: url))
        configuration.options.connectTimeout = .seconds(Int64(url.connectTimeoutSeconds))
        configuration.options.additionalStartupParameters = url.sessionSettings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let id = nextID.add(1, ordering: .relaxed).newValue
        return PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger)
    }

    /// The store's error for a failed connection attempt.
    private static func connectError(_ error: any Error, url: PostgresURL) -> StoreError {
        if let error = error as? StoreError { return error }
        return ServerError.connecting(to: url, error)
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

    /// Runs one statement with `values` bound to `$1`, `$2`, … and returns its rows; the calling thread waits.
    @discardableResult
    package func query(_ sql: String, _ values: [DatabaseValue] = []) throws -> ServerResult {
        let settled = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<ServerResult, any Error>?>(nil)
        send(sql, values) { result in
            outcome.withLock { $0 = result }
            settled.signal()
        }
        settled.wait()
        return try outcome.withLock { $0 }!.get()
    }

    /// Runs one statement with `values` bound to `$1`, `$2`, … and returns its rows; the caller is suspended until
    /// the answer comes.
    @discardableResult
    nonisolated(nonsending) package func query(_ sql: String, _ values: [DatabaseValue] = []) async throws -> ServerResult {
        try await withCheckedThrowingContinuation { continuation in
            send(sql, values) { continuation.resume(with: $0) }
        }
    }

    /// Sends one statement and calls `done` once with its rows or its error: the error of a connection that closes
    /// before the answer comes too (a statement the server never answers because the connection died — postgres-nio
    /// 1.33.2 leaves it pending when a listener is registered — fails instead of waiting for ever).
    private func send(_ sql: String, _ values: [DatabaseValue], _ done: @escaping @Sendable (Result<ServerResult, any Error>) -> Void) {
        let url = url
        let lost: @Sendable () -> StoreError = { StoreError(.unavailable, "the connection to \(url) was lost", sql: sql) }
        // A statement sent on a connection the server already closed is never answered: fail at once.
        guard !connection.isClosed else { return done(.failure(lost())) }
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { ServerValueCodec.bind(value, into: &bindings) }
        let answered = Atomic<Bool>(false)
        let finish: @Sendable (Result<ServerResult, any Error>) -> Void = { result in
            guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
            done(result)
        }
        let closedAlready = closeWatch.withLock { watch in
            watch.waiter = { finish(.failure(lost())) }
            return watch.isClosed
        }
        if closedAlready { return finish(.failure(lost())) }
        connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).whenComplete { [self] result in
            closeWatch.withLock { $0.waiter = nil }
            finish(
                result.flatMapError { error in
                    .failure((error as? StoreError) ?? ServerError.failed(sql: sql, error, url: url))
                }.flatMap { answer in Result { try ServerResult(answer) } })
        }
    }

    /// Runs one statement and returns how many rows it inserted, updated or deleted; the calling thread waits.
    @discardableResult
    package func execute(_ sql: String, _ values: [DatabaseValue] = []) throws -> Int {
        try query(sql, values).affectedRows
    }

    /// Runs one statement and returns how many rows it inserted, updated or deleted; the caller is suspended.
    @discardableResult
    nonisolated(nonsending) package func execute(_ sql: String, _ values: [DatabaseValue] = []) async throws -> Int {
        try await query(sql, values).affectedRows
    }

    /// `SET LOCAL lock_timeout` in the open transaction: each later statement waits at most `timeout` for a lock,
    /// then fails (SQLSTATE 55P03, ``StoreError/Code/busy``). Whole milliseconds, at least 1 (0 would wait for ever).
    package static func lockTimeoutSetting(_ timeout: Duration) -> (sql: String, values: [DatabaseValue]) {
        ("SELECT set_config('lock_timeout', $1, true)", [.text(lockTimeoutValue(timeout))])
    }

    /// `timeout` as a value of the `lock_timeout` setting: whole milliseconds, at least 1 (0 would mean no limit).
    package static func lockTimeoutValue(_ timeout: Duration) -> String {
        "\(max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))ms"
    }

    /// The one command that runs a script of several statements (a migration file) inside the caller's transaction.
    package static func scriptCommand(_ sql: String) throws -> String {
        guard !sql.contains("$store_script$") else {
            throw StoreError(.invalidInput, "a script cannot contain the text $store_script$")
        }
        return "DO $store_migration$ BEGIN EXECUTE $store_script$\(sql)$store_script$; END $store_migration$"
    }

    /// Runs a script of several statements (a migration file) as one command, inside the caller's transaction.
    package func script(_ sql: String) throws {
        try execute(try ServerConnection.scriptCommand(sql))
    }

    /// Starts listening on `channel`: `handler` gets each notification's payload, on the connection's event loop
    /// (it must return quickly). Notifications arrive only while the connection is open and not in a transaction.
    /// postgres-nio sends the `LISTEN` itself, ahead of any later statement: once this returns, it is in effect.
    package func listen(on channel: String, _ handler: @escaping @Sendable (String) -> Void) throws {
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        try execute("SELECT 1")
    }

    /// Starts listening on `channel`, as the blocking form does, the caller suspended until it is in effect.
    nonisolated(nonsending) package func listen(on channel: String, _ handler: @escaping @Sendable (String) -> Void) async throws {
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        try await execute("SELECT 1")
    }

    /// Runs `body` in a transaction opened with `begin` (e.g. `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`) and
    /// commits when it returns; when `body` or COMMIT throws, rolls back (``rollbackOrClose()``) and rethrows.
    package func inTransaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        let value: T
        do {
            value = try body()
        } catch {
            rollbackOrClose()
            throw error
        }
        guard !isClosed else { throw lostBeforeCommit }
        do {
            try execute("COMMIT")
        } catch {
            rollbackOrClose()
            throw ServerConnection.commitFailure(error)
        }
        return value
    }

    /// A connection lost before COMMIT was sent: the server rolled the transaction back when the session ended.
    private var lostBeforeCommit: StoreError {
        StoreError(.unavailable, "the connection to \(url) was lost before COMMIT: nothing was committed", sql: "COMMIT")
    }

    /// The error of a failed COMMIT: a lost connection leaves the outcome unknown (``StoreError/Code/commitUnknown``);
    /// any other failure (a deferred constraint, a serialization failure) means the transaction rolled back.
    package static func commitFailure(_ error: any Error) -> any Error {
        guard let error = error as? StoreError, error.code == .unavailable else { return error }
        return StoreError(
            .commitUnknown, "\(error.message) while COMMIT was on its way: the write may or may not have committed", sql: "COMMIT")
    }

    /// Like the blocking form, with `body` and every statement awaited.
    nonisolated(nonsending) package func inTransaction<T>(
        _ begin: String = "BEGIN", _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        try await execute(begin)
        let value: T
        do {
            value = try await body()
        } catch {
            await rollbackOrClose()
            throw error
        }
        guard !isClosed else { throw lostBeforeCommit }
        do {
            try await execute("COMMIT")
        } catch {
            await rollbackOrClose()
            throw ServerConnection.commitFailure(error)
        }
        return value
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

    /// Like the blocking form, the caller suspended instead.
    nonisolated(nonsending) package func rollbackOrClose() async {
        guard !isClosed else { return }
        do {
            try await execute("ROLLBACK")
        } catch {
            closeSoon()
        }
    }

    /// Calls `handler` once when the connection closes, for whatever reason.
    package func onClose(_ handler: @escaping @Sendable () -> Void) {
        connection.closeFuture.whenComplete { _ in handler() }
    }

    /// Closes the connection, waiting until it is closed; later calls fail with ``StoreError/Code/unavailable``.
    package func close() {
        guard !connection.isClosed else { return }
        try? connection.close().wait()
    }

    /// Starts closing the connection without waiting; later calls fail with ``StoreError/Code/unavailable``.
    package func closeSoon() {
        guard !connection.isClosed else { return }
        // postgres-nio asserts that a connection is closed when it is freed: it lives until the close is done.
        let connection = connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    deinit {
        closeSoon()
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
