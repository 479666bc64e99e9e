#if PostgreSQL
import Foundation
import ObservableStoreCore

/// Where a PostgreSQL store lives: `postgres://user:password@host:port/database` (or `postgresql://`).
///
/// The user defaults to `postgres`, the host to `127.0.0.1`, the port to 5432, the database to the user's name.
/// RecordQuery options: `sslmode` (``TLSMode``; `disable` by default), `sslrootcert=PATH` (the certificate authorities
/// to trust, PEM, instead of the system's), `connect_timeout=SECONDS`, `application_name` (ignored).
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// Whether and how the connection is encrypted: libpq's `sslmode` values.
    package enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS (`disable`, and `allow`, which libpq tries without TLS first).
        case disable
        /// TLS when the server offers it, plain otherwise; the certificate is not checked.
        case prefer
        /// TLS or no connection; the certificate is checked against the trusted authorities only when
        /// `sslrootcert` names them (as libpq does).
        case require
        /// TLS, and a certificate signed by a trusted authority; the host name is not checked.
        case verifyCA = "verify-ca"
        /// TLS, a certificate signed by a trusted authority, for the host the URL names.
        case verifyFull = "verify-full"
    }

    package var user: String
    package var password: String?
    package var host: String
    package var port: Int
    package var database: String
    /// How long connecting may take before it fails, in seconds.
    package var connectTimeoutSeconds: Int
    /// Whether and how the connection is encrypted (`sslmode`).
    package var tlsMode: TLSMode
    /// The PEM file of the certificate authorities to trust (`sslrootcert`); nil: the system's trust store.
    package var rootCertificatePath: String?
    /// Server settings each session starts with (startup parameters: `lock_timeout`, say), by name.
    package var sessionSettings: [String: String] = [:]

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
        tlsMode = .disable
        rootCertificatePath = nil
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                let value = item.value ?? ""
                guard let mode = value == "allow" ? .disable : TLSMode(rawValue: value) else {
                    throw StoreError(
                        .invalidInput,
                        "bad sslmode \"\(value)\" (disable, allow, prefer, require, verify-ca or verify-full)")
                }
                tlsMode = mode
            case "sslrootcert":
                guard let path = item.value, !path.isEmpty else {
                    throw StoreError(.invalidInput, "sslrootcert needs the path of a PEM file of certificate authorities")
                }
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw StoreError(.invalidInput, "sslrootcert \(path) is not a readable file")
                }
                rootCertificatePath = path
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
        let mode = tlsMode == .disable ? "" : "?sslmode=\(tlsMode.rawValue)"
        return "postgres://\(credentials)@\(host):\(port)/\(database)\(mode)"
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
