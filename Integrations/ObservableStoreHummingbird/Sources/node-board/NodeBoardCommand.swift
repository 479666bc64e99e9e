import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import NodeBoard
import ObservableStore
import ObservableStoreHummingbird
import Prometheus
#if PostgreSQL
    import ObservableStorePostgres
#endif
import ServiceLifecycle
import UnixSignals

/// `node-board --db PATH|URL [--host 127.0.0.1] [--port 8080] [--feed-poll-ms 25]`: serves the node board on the store at
/// PATH (created if missing), or, built with the trait PostgreSQL, on the PostgreSQL database at a `postgres://` URL. Writes need `Authorization: Bearer $NODE_BOARD_TOKEN` when that variable is set; a non-loopback host
/// without it is refused (exit 64). Exits 0 on SIGTERM or SIGINT, after a graceful shutdown.
@main
struct NodeBoardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node-board", abstract: "Serve the node board: the page, its REST API and the live event stream.")

    /// EX_USAGE: the command line or the environment does not allow starting.
    static let usageExitCode: Int32 = 64

    @Option(help: "The store's file (created if missing), or a postgres:// URL (a node-board built with the trait PostgreSQL).")
    var db: String

    @Option(help: "The address to listen on (a non-loopback address needs NODE_BOARD_TOKEN).")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free port; the URL is printed).")
    var port = 8080

    @Option(
        name: .customLong("feed-poll-ms"),
        help: "How often, in milliseconds, the store checks for other processes' commits when nothing woke it (1...1000).")
    var feedPollMilliseconds = 25

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535, not \(port)") }
        guard (1...1000).contains(feedPollMilliseconds) else {
            throw ValidationError("--feed-poll-ms must be in 1...1000, not \(feedPollMilliseconds)")
        }
    }

    func run() async throws {
        let token = ProcessInfo.processInfo.environment["NODE_BOARD_TOKEN"]
        if let refusal = ListenPolicy.refusal(host: host, token: token) {
            FileHandle.standardError.write(Data((refusal + "\n").utf8))
            throw ExitCode(NodeBoardCommand.usageExitCode)
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "node-board")
        let service: StoreService
        do {
            service = StoreService(store: try openStore())
        } catch let refusal as UsageRefusal {
            FileHandle.standardError.write(Data("node-board: \(refusal.message)\n".utf8))
            throw ExitCode(NodeBoardCommand.usageExitCode)
        } catch {
            FileHandle.standardError.write(Data("node-board: cannot open the store \(redactedDB): \(error)\n".utf8))
            throw ExitCode.failure
        }
        // `[::1]` names an address as in a URL; the socket takes it without the brackets.
        let host = self.host.hasPrefix("[") && self.host.hasSuffix("]") ? String(self.host.dropFirst().dropLast()) : self.host
        let app = try NodeBoardApplication.make(
            service: service, token: token, host: host, port: port, metrics: registry, logger: logger,
            onServerRunning: { port in
                let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
                logger.info("listening on \(url)")
                FileHandle.standardOutput.write(Data("node-board listening on \(url)\n".utf8))
            })
        // A client that stays connected but stops reading holds its handler in a write that only cancellation ends:
        // past this much graceful shutdown the group cancels, and the store service still closes the store.
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = NodeBoardCommand.maximumGracefulShutdown
        try await ServiceGroup(configuration: group).run()
    }

    /// The store of --db: a PostgreSQL database for a `postgres://` or `postgresql://` URL, else a SQLite file.
    private func openStore() throws -> any RecordStore {
        guard db.hasPrefix("postgres://") || db.hasPrefix("postgresql://") else {
            // Shorter than the library's 250 ms: the fallback when no directory notification woke the feed
            // costs one `PRAGMA data_version` per check (see the README's "Commits of other processes").
            var configuration = SQLiteStoreConfiguration()
            configuration.changeFeedPollInterval = .milliseconds(feedPollMilliseconds)
            return try SQLiteStore(path: db, configuration: configuration)
        }
        #if PostgreSQL
            var configuration = PostgresStoreConfiguration()
            configuration.changeFeedPollInterval = .milliseconds(feedPollMilliseconds)
            configuration.applicationName = "node-board"
            return try PostgresStore(url: db, configuration: configuration)
        #else
            throw UsageRefusal(
                message: "--db \(redactedDB): this node-board was built without PostgreSQL; build it with --traits PostgreSQL")
        #endif
    }

    /// --db with the password of a URL replaced by `***`.
    private var redactedDB: String {
        db.replacingOccurrences(of: #"(://[^:/@]*):[^@/]*@"#, with: "$1:***@", options: .regularExpression)
    }

    /// A --db this node-board cannot serve (exit 64).
    private struct UsageRefusal: Error {
        let message: String
    }

    /// How long a graceful shutdown may take before the handlers still running are cancelled.
    static let maximumGracefulShutdown: Duration = .seconds(2)
}
