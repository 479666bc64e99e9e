import Foundation
import Testing

/// The PostgreSQL server the tests use: the URL in the environment variable `OBSERVABLE_STORE_POSTGRES_URL`, or else a
/// private cluster the test process starts itself when PostgreSQL is installed, and removes when it ends
/// (``PostgresTestCluster``). With neither, the PostgreSQL tests are skipped with ``skipReason``, never reported as
/// passed; a cluster that failed to start fails them.
///
/// For example:
///
/// ```swift
/// @Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
/// struct PostgresThingTests { ... }
/// ```
public enum PostgresTestServer {
    /// The environment variable that holds the server's URL, e.g. `postgres://postgres@127.0.0.1:54329/postgres`.
    public static let environmentVariable = "OBSERVABLE_STORE_POSTGRES_URL"

    /// Why the PostgreSQL tests are skipped when ``isAvailable`` is false.
    public static let skipReason: Comment =
        "PostgreSQL is not installed (apt-get install -y postgresql) and OBSERVABLE_STORE_POSTGRES_URL is not set"

    /// The server's URL (a superuser's, on a database that exists), or nil when there is none (see
    /// ``unavailableReason``).
    public static var url: String? {
        if case .server(let url) = PostgresTestCluster.outcome { return url }
        return nil
    }

    /// Whether the PostgreSQL tests run: a server was given or is installed (if it could not be started, the tests
    /// run and fail with ``unavailableReason``).
    public static var isAvailable: Bool {
        if case .notInstalled = PostgresTestCluster.outcome { return false }
        return true
    }

    /// Why ``url`` is nil: PostgreSQL is not installed, or its cluster did not start (and why).
    public static var unavailableReason: String {
        switch PostgresTestCluster.outcome {
        case .server: "a server is available"
        case .notInstalled: skipReason.rawValue
        case .failed(let reason): reason
        }
    }

    /// The `psql` client's path; throws when it is not installed.
    public static func psqlPath() throws -> String {
        let candidates = ["/usr/bin/psql", "/usr/local/bin/psql"]
        guard let psql = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "psql (apt-get install postgresql-15; .ci/run installs it)"])
        }
        return psql
    }

    /// Runs `sql` with `psql` on the database at `url` (no startup file, quiet, stopping at the first error,
    /// unaligned rows without headers) and returns what it printed; throws ``PSQLFailure`` when `psql` fails
    /// or runs longer than `timeout` seconds.
    @discardableResult
    public static func psql(_ sql: String, on url: String, timeout: Double = 60) throws -> String {
        let result = try RunningProcess(
            executable: URL(fileURLWithPath: psqlPath()), ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql]
        ).wait(timeout: timeout)
        guard result.status == 0, !result.signaled, !result.timedOut else {
            throw PSQLFailure(sql: sql, result: result)
        }
        return result.stdout
    }

    /// `url` with its database replaced by `database`; throws for a URL that is not a `postgres://` URL.
    public static func url(_ url: String, database: String) throws -> String {
        guard var components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw CocoaError(.fileReadInvalidFileName, userInfo: [NSFilePathErrorKey: "\(environmentVariable) is not a postgres:// URL"])
        }
        components.path = "/" + database
        guard let replaced = components.string else {
            throw CocoaError(.fileReadInvalidFileName, userInfo: [NSFilePathErrorKey: "\(environmentVariable) is not a postgres:// URL"])
        }
        return replaced
    }

    /// A `psql` run that failed: the statement and what `psql` said.
    public struct PSQLFailure: Error, CustomStringConvertible {
        /// The SQL that was run.
        public var sql: String
        /// How `psql` ended.
        public var result: ProcessResult

        public var description: String {
            let how = result.timedOut ? "timed out" : "exited with \(result.status)"
            return "psql \(how) running \(sql): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }
}
