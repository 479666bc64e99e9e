#if PostgreSQL
import Foundation
import ObservableStoreCore

/// Where a PostgreSQL store lives: `postgres://user:password@host:port/database` (or `postgresql://`).
///
/// The user defaults to `postgres`, the host to `127.0.0.1`, the port to 5432, the database to the user's name.
/// Query options: `sslmode=disable` (the default; TLS is not offered) and `connect_timeout=SECONDS`.
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    package var user: String
    package var password: String?
    package var host: String
    package var port: Int
    package var database: String
    /// How long connecting may take before it fails, in seconds.
    package var connectTimeoutSeconds: Int

    /// Whether `text` looks like a PostgreSQL URL (its scheme), so callers can choose the engine.
    package static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses `text`; throws ``StoreError/Code/invalidInput`` naming what is wrong.
    package init(_ text: String) throws {
        guard PostgresURL.isPostgresURL(text), let components = URLComponents(string: text) else {
            throw StoreError(.invalidInput, "not a PostgreSQL URL: \(PostgresURL.redacted(text)) (expected postgres://user@host:port/database)")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw StoreError(.invalidInput, "bad port \(port) in \(PostgresURL.redacted(text))")
        }
        if components.url?.port == nil, text.range(of: #"@[^/]*:[^0-9/]"#, options: .regularExpression) != nil {
            throw StoreError(.invalidInput, "bad port in \(PostgresURL.redacted(text))")
        }
        user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 } ?? "postgres"
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        if path.contains("/") {
            throw StoreError(.invalidInput, "bad database name \"\(path)\" in \(PostgresURL.redacted(text))")
        }
        database = path.isEmpty ? user : path
        connectTimeoutSeconds = 10
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard item.value == "disable" || item.value == "prefer" || item.value == "allow" else {
                    throw StoreError(.invalidInput, "sslmode=\(item.value ?? "") is not supported (TLS is not offered; use sslmode=disable)")
                }
            case "connect_timeout":
                guard let seconds = item.value.flatMap(Int.init), seconds > 0 else {
                    throw StoreError(.invalidInput, "bad connect_timeout \"\(item.value ?? "")\" (a whole number of seconds)")
                }
                connectTimeoutSeconds = seconds
            case "application_name": break
            default:
                throw StoreError(.invalidInput, "unknown option \(item.name) in \(PostgresURL.redacted(text))")
            }
        }
    }

    /// The URL with the password hidden: what errors and logs show.
    package var description: String {
        let credentials = password == nil ? user : "\(user):***"
        return "postgres://\(credentials)@\(host):\(port)/\(database)"
    }

    /// The same server, another database (tests, `CREATE DATABASE`).
    package func with(database: String) -> PostgresURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// `text` with any password replaced by `***`.
    static func redacted(_ text: String) -> String {
        text.replacingOccurrences(of: #"(://[^:/@]*):[^@/]*@"#, with: "$1:***@", options: .regularExpression)
    }
}
#endif
