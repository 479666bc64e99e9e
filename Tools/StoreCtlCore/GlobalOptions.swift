import ArgumentParser
import Foundation
import ObservableStore

/// The output formats.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, ndjson, csv
}

/// Options every command takes (STORECTL.md C.1), before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The store file, or a PostgreSQL database as postgres://user@host:port/database. Default: $STORECTL_DB, then ./store.sqlite.")
    var db: String?

    @Option(name: .long, help: "Output format: table, json, ndjson or csv. Default: table on a terminal, ndjson otherwise.")
    var format: OutputFormat?

    @Option(name: .long, help: "How long to wait for another writer's lock, e.g. 5s or 500ms (on PostgreSQL: each transaction's lock_timeout).")
    var busyTimeout: String = "5s"

    @Flag(name: .long, help: "No colour, even on a terminal (NO_COLOR is respected too).")
    var noColor = false

    @Flag(name: .shortAndLong, help: "Print no messages, only data and errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Add SQLite's result codes to error messages.")
    var verbose = false

    func validate() throws {
        guard Duration.parse(busyTimeout) != nil else {
            throw ValidationError("--busy-timeout: '\(busyTimeout)' is not a duration (e.g. 5s, 500ms, 1m)")
        }
    }

    /// The store path: --db, then $STORECTL_DB, then ./store.sqlite.
    var path: String {
        db ?? ProcessInfo.processInfo.environment["STORECTL_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "./store.sqlite"
    }

    /// Where output goes and how it looks.
    var output: Output {
        let color = !noColor && ProcessInfo.processInfo.environment["NO_COLOR"] == nil && isatty(STDOUT_FILENO) == 1
        return Output(format: format ?? (isatty(STDOUT_FILENO) == 1 ? .table : .ndjson), color: color, quiet: quiet)
    }

    var busyTimeoutDuration: Duration { Duration.parse(busyTimeout) ?? .seconds(5) }

    /// What a command needs of the store's schema.
    enum SchemaNeed {
        /// Any schema, older or newer (info, migrate status, check, backup).
        case any
        /// Exactly the schema storectl knows; older ones are migrated only when `migrate` is true.
        case current(migrate: Bool)
    }

    /// Opens the existing SQLite store (never creates one), checks it is a storectl store and that its schema
    /// fits `need`. A `postgres://` --db is refused: the command runs on SQLite stores only.
    func openStore(_ need: SchemaNeed, policy: SQLiteStoreConfiguration.MigrationPolicy = .none) throws -> SQLiteStore {
        let path = self.path
        try refusePostgres("this command works on SQLite stores only")
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.notFound, "no store at \(path); create one with `storectl init --db \(path)`")
        }
        var configuration = SQLiteStoreConfiguration()
        configuration.createIfMissing = false
        configuration.migrationPolicy = policy
        configuration.busyTimeout = busyTimeoutDuration
        configuration.applicationName = "storectl \(SQLiteStore.libraryVersion)"
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: path, configuration: configuration)
        } catch let error as StoreError where error.code == .notAStore {
            throw StoreError(.notAStore, "\(path) is not a storectl store: \(error.message)", sqliteCode: error.sqliteCode)
        }
        return try prepared(store, need) { policy in try openStore(.any, policy: policy) }
    }

    /// Throws a usage error, `reason` and the database, when --db is a `postgres://` URL: for the commands that
    /// work on SQLite files only (nothing is opened or changed).
    func refusePostgres(_ reason: String) throws {
        guard GlobalOptions.isPostgresURL(path) else { return }
        throw CLIError.usage("\(reason), not on --db \(GlobalOptions.redacted(path))")
    }

    /// Prints a message on stderr unless --quiet.
    func say(_ message: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

extension Duration {
    /// Parses "5s", "500ms", "2m", "1h" or a plain number of seconds.
    static func parse(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        func milliseconds(_ value: Double?, _ scale: Double) -> Duration? {
            guard let value, value >= 0, let result = Int64(exactly: (value * scale * 1000).rounded()), result < Int64(Int32.max)
            else { return nil }
            return .milliseconds(result)
        }
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            return milliseconds(Double(text.dropLast(suffix.count)), scale)
        }
        return milliseconds(Double(text), 1)
    }
}
