import ArgumentParser
import Foundation
import ObservableStore
import SSEWire

/// `sse-load write (--db PATH | --port P) --commits N [--rate R]`: one node per commit, each commit carrying the
/// wall-clock time (ns) taken just before it, so clients can measure commit → receive. With `--db`, commits through
/// the library in this process (origin `sse-load <ns>`; node-board notices them with its change-feed poll); with
/// `--port`, through node-board's `POST /api/nodes` (name `sse-load <ns>`; committed in node-board's process).
struct LoadWrite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write", abstract: "Make commits, timestamped, through the library or node-board's API.")

    @Option(help: "The store's file: commit through the library.")
    var db: String?

    @Option(help: "node-board's port: commit through POST /api/nodes (with $NODE_BOARD_TOKEN if set).")
    var port: Int?

    @Option(help: "node-board's address (IPv4), with --port.")
    var host = "127.0.0.1"

    @Option(help: "How many commits to make.")
    var commits = 1_000

    @Option(help: "Commits per second (0: as fast as possible).")
    var rate = 0.0

    func validate() throws {
        guard commits >= 0, rate >= 0 else { throw ValidationError("--commits and --rate must not be negative") }
        guard (db == nil) != (port == nil) else { throw ValidationError("give either --db or --port") }
    }

    func run() throws {
        let commit: (Int, UInt64) throws -> Void
        var close: () -> Void = {}
        if let db {
            let store = try SQLiteStore(path: db)
            close = { store.close() }
            let process = ProcessInfo.processInfo.processIdentifier
            commit = { index, time in
                try store.write(origin: "\(LoadOrigin.prefix)\(time)") { transaction in
                    _ = try transaction.execute(
                        "INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)",
                        ["load-\(process)-\(index)", Double(index % 800), Double(index % 600)])
                }
            }
        } else {
            let client = try HTTPClient(host: host, port: port ?? 0)
            commit = { index, time in
                let body = #"{"name":"\#(LoadOrigin.prefix)\#(time)","x":\#(index % 800),"y":\#(index % 600)}"#
                let status = try client.send("POST", "/api/nodes", json: body)
                guard status == 201 else { throw ValidationError("POST /api/nodes answered \(status)") }
            }
        }
        defer { close() }
        let start = SSEConnection.now()
        for index in 0..<commits {
            if rate > 0 {
                let due = start + UInt64(Double(index) / rate * 1e9)
                let now = SSEConnection.now()
                if due > now { usleep(useconds_t((due - now) / 1_000)) }
            }
            try commit(index, SSEConnection.now())
        }
    }
}

/// The timestamp `sse-load write` puts in a commit: in its origin (through the library) or its node's name (through
/// the API), after this prefix.
enum LoadOrigin {
    static let prefix = "sse-load "
    private static let marker = Array("\"\(prefix)".utf8)  // the origin string's opening quote and prefix

    /// The timestamp in a commit frame's data (the first string starting with the prefix), if `sse-load write` made it.
    static func timestamp(in data: String) -> UInt64? {
        let bytes = Array(data.utf8)
        guard let found = bytes.firstRange(of: marker) else { return nil }
        var value: UInt64 = 0
        for byte in bytes[found.upperBound...] {
            guard byte >= 0x30, byte <= 0x39 else { break }
            value = value * 10 + UInt64(byte - 0x30)
        }
        return value
    }
}
