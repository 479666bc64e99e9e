#if PostgreSQL
import Foundation
import ObservableStoreCore

/// Where a PostgreSQL store lives: `postgres://user:password@host:port/database` (or `postgresql://`), or several
/// hosts tried in order, as libpq takes them: `postgres://user@db1:5432,db2:5432/database`.
///
/// The user defaults to `postgres`, the host to `127.0.0.1`, the port to 5432, the database to the user's name.
/// Query options: `sslmode` (``TLSMode``; `disable` by default), `sslrootcert=PATH` (the certificate authorities
/// to trust, PEM, instead of the system's), `connect_timeout=SECONDS` (per host), `target_session_attrs`
/// (``SessionTarget``: `any`, `read-write` or `primary`; `read-write` by default when several hosts are listed, so a
/// connection reaches the primary after a failover, `any` with one host), `application_name` (ignored).
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// One server of the list: a host name or address, and a port.
    package struct Host: Sendable, Hashable, CustomStringConvertible {
        package var name: String
        package var port: Int

        /// `name:port` (an IPv6 address in brackets).
        package var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
    }

    /// Which servers a connection accepts: libpq's `target_session_attrs`.
    package enum SessionTarget: String, Sendable, Hashable, CaseIterable {
        /// Any server that accepts the login.
        case any
        /// A server whose sessions may write (`transaction_read_only` off): the primary, not a standby.
        case readWrite = "read-write"
        /// A server not in recovery (`pg_is_in_recovery()` false).
        case primary
    }

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
    /// The servers, tried in order until one accepts a session of ``sessionTarget``.
    package var hosts: [Host]
    /// Which servers a connection accepts.
    package var sessionTarget: SessionTarget
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

    /// The first server's host name.
    package var host: String {
        get { hosts[0].name }
        set { hosts[0].name = newValue }
    }

    /// The first server's port.
    package var port: Int {
        get { hosts[0].port }
        set { hosts[0].port = newValue }
    }

    /// Parses `text`; throws ``StoreError/Code/invalidInput`` naming what is wrong.
    package init(_ text: String) throws {
        let (single, others) = try PostgresURL.splittingHosts(text)
        try self.init(singleHost: single)
        hosts += others
        let isExplicit = URLComponents(string: single)?.queryItems?.contains { $0.name == "target_session_attrs" } ?? false
        if !others.isEmpty && !isExplicit { sessionTarget = .readWrite }
    }

    /// `text` with only its first host, and the other hosts of its list.
    private static func splittingHosts(_ text: String) throws -> (String, [Host]) {
        guard let schemeEnd = text.range(of: "://") else { return (text, []) }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let list = authority[hostStart...].split(separator: ",", omittingEmptySubsequences: false)
        guard list.count > 1 else { return (text, []) }
        var others: [Host] = []
        for entry in list.dropFirst() {
            others.append(try host(String(entry), in: text))
        }
        let single = String(text[..<hostStart]) + String(list[0]) + String(rest[authorityEnd...])
        return (single, others)
    }

    /// One `host[:port]` of a host list (`[v6]:port` for an IPv6 address).
    private static func host(_ entry: String, in text: String) throws -> Host {
        let bad = StoreError(.invalidInput, "bad host \"\(entry)\" in the host list of \(PostgresURL.redacted(text))")
        var name = Substring(entry)
        var portText: Substring?
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { throw bad }
            name = entry[entry.index(after: entry.startIndex)..<close]
            let after = entry[entry.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad }
                portText = after.dropFirst()
            }
        } else if let colon = entry.lastIndex(of: ":") {
            name = entry[..<colon]
            portText = entry[entry.index(after: colon)...]
        }
        guard !name.isEmpty, !name.contains(where: { "/@?#[] ".contains($0) }) else { throw bad }
        var port = 5432
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw StoreError(.invalidInput, "bad port in \"\(entry)\" in the host list of \(PostgresURL.redacted(text))")
            }
            port = number
        }
        return Host(name: String(name), port: port)
    }

    /// Parses a URL of one host.
    private init(singleHost text: String) throws {
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
        hosts = [Host(name: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: components.port ?? 5432)]
        sessionTarget = .any
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
            case "target_session_attrs":
                guard let target = SessionTarget(rawValue: item.value ?? "") else {
                    throw StoreError(
                        .invalidInput, "bad target_session_attrs \"\(item.value ?? "")\" (any, read-write or primary)")
                }
                sessionTarget = target
            case "application_name": break
            default:
                throw StoreError(.invalidInput, "unknown option \(item.name) in \(PostgresURL.redacted(text))")
            }
        }
    }

    /// The URL with the password hidden: what errors and logs show.
    package var description: String {
        let credentials = password == nil ? user : "\(user):***"
        var options: [String] = []
        if tlsMode != .disable { options.append("sslmode=\(tlsMode.rawValue)") }
        let defaultTarget: SessionTarget = hosts.count > 1 ? .readWrite : .any
        if sessionTarget != defaultTarget { options.append("target_session_attrs=" + sessionTarget.rawValue) }
        let query = options.isEmpty ? "" : "?" + options.joined(separator: "&")
        return "postgres://\(credentials)@\(hosts.map(\.description).joined(separator: ","))/\(database)\(query)"
    }

    /// The same URL with `host` as its only server, any session accepted: what a failed attempt on that host names.
    package func only(_ host: Host) -> PostgresURL {
        var copy = self
        copy.hosts = [host]
        copy.sessionTarget = .any
        return copy
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
