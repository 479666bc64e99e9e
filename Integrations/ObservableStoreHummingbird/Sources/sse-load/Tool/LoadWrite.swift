import ArgumentParser
import Foundation
import ObservableStore
import SSEWire

/// `sse-load write --db PATH --commits N [--rate R]`: commits through the library, one node per commit, each
/// commit's origin carrying the wall-clock time (ns) taken just before it, so clients can measure commit → receive.
struct LoadWrite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write", abstract: "Make commits through the library, timestamped in their origin.")

    @Option(help: "The store's file (an existing store).")
    var db: String

    @Option(help: "How many commits to make.")
    var commits = 1_000

    @Option(help: "Commits per second (0: as fast as possible).")
    var rate = 0.0

    @Option(help: "Rows per commit (one node each).")
    var rows = 1

    func validate() throws {
        guard commits >= 0, rows >= 1, rate >= 0 else { throw ValidationError("--commits, --rows and --rate must be positive") }
    }

    func run() throws {
        let store = try Store(path: db)
        defer { store.close() }
        let start = SSEConnection.now()
        let process = ProcessInfo.processInfo.processIdentifier
        for index in 0..<commits {
            if rate > 0 {
                let due = start + UInt64(Double(index) / rate * 1e9)
                let now = SSEConnection.now()
                if due > now { usleep(useconds_t((due - now) / 1_000)) }
            }
            try store.write(origin: "\(LoadOrigin.prefix)\(SSEConnection.now())") { transaction in
                for row in 0..<rows {
                    _ = try transaction.execute(
                        "INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)",
                        ["load-\(process)-\(index)-\(row)", Double(index % 800), Double(row % 600)])
                }
            }
        }
    }
}

/// The origin `sse-load write` gives its commits: this prefix, then the wall-clock time in nanoseconds.
enum LoadOrigin {
    static let prefix = "sse-load "
    private static let marker = Array("\"\(prefix)".utf8)  // the origin string's opening quote and prefix

    /// The timestamp in a commit frame's data, if a `sse-load write` made the commit.
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
