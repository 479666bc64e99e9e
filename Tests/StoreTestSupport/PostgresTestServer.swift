import Foundation
import Testing

/// The PostgreSQL server the tests use: the URL in the environment variable `OBSERVABLE_STORE_POSTGRES_URL`
/// (`.ci/run` starts a private cluster and exports it). Without it, the PostgreSQL tests are skipped with
/// ``skipReason``, never reported as passed.
///
/// For example:
///
/// ```swift
/// @Suite(.enabled(if: PostgresTestServer.isAvailable, "OBSERVABLE_STORE_POSTGRES_URL is not set"))
/// struct PostgresThingTests { ... }
/// ```
public enum PostgresTestServer {
    /// The environment variable that holds the server's URL, e.g. `postgres://postgres@127.0.0.1:54329/postgres`.
    public static let environmentVariable = "OBSERVABLE_STORE_POSTGRES_URL"

    /// Why the PostgreSQL tests are skipped when ``isAvailable`` is false.
    public static let skipReason: Comment = "OBSERVABLE_STORE_POSTGRES_URL is not set"

    /// The server's URL (a superuser's, on a database that exists), or nil when the variable is not set or empty.
    public static var url: String? {
        guard let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty else { return nil }
        return url
    }

    /// Whether a server was given: the PostgreSQL tests run only then.
    public static var isAvailable: Bool { url != nil }

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
