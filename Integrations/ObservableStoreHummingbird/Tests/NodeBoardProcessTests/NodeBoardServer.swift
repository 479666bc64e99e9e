import Foundation
import SSEWire

/// A `node-board` process serving a store in a temporary folder on a free loopback port (`--port 0`; the port is
/// read from its "listening on" line). ``stop()`` ends it with SIGTERM; a test that fails kills it in `deinit`.
final class NodeBoardServer: @unchecked Sendable {
    // @unchecked: every property is set in init and not changed afterwards.
    /// The running process.
    let process: ChildProcess
    /// The store's file.
    let storePath: String
    /// The folder holding the store (removed in deinit).
    let directory: URL
    /// The port it listens on.
    let port: Int

    /// Starts node-board on a new store (or on `storePath`), with `arguments` added and `environment` replacing
    /// this process's when given.
    init(storePath: String? = nil, port: Int = 0, arguments: [String] = [], environment: [String: String]? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-board-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.storePath = storePath ?? directory.appendingPathComponent("board.sqlite").path
        process = try ChildProcess(
            try BuiltProducts.nodeBoard(), ["--db", self.storePath, "--port", "\(port)"] + arguments,
            environment: environment)
        let listening = try process.waitForOutput(matching: #"listening on [^\s]*:(\d+)"#, timeout: 30)
        guard let port = Int(listening) else { throw ChildFailure(description: "bad port \(listening)") }
        self.port = port
    }

    deinit {
        process.send(SIGKILL)
        _ = process.waitForExit(timeout: 10)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends SIGTERM and waits at most `timeout` seconds: the exit status, or nil if it still ran (then killed).
    func stop(timeout: Double = 5) -> (status: Int32, signaled: Bool)? {
        process.send(SIGTERM)
        return process.waitForExit(timeout: timeout)
    }

    /// A new client of `GET /events` on this server (path may carry `?since=`), its response head read (200, or it
    /// throws).
    func events(path: String = "/events", headers: [String: String] = [:]) throws -> SSEConnection {
        let connection = try SSEConnection(port: port, path: path, headers: headers)
        let status = try connection.head(timeout: 10).status
        guard status == 200 else { throw ChildFailure(description: "GET \(path) answered \(status), not 200") }
        return connection
    }

    /// Runs `storectl --db <store> arguments…` to completion.
    func storectl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try ChildProcess.run(try BuiltProducts.storectl(), ["--db", storePath] + arguments, timeout: 60)
    }

    /// Inserts a node with `storectl insert`; fails unless it exits 0.
    func insertNode(named name: String, x: Double = 10, y: Double = 20) throws {
        let result = try storectl(["insert", "nodes", #"{"name":"\#(name)","x":\#(x),"y":\#(y)}"#])
        guard result.status == 0 else { throw ChildFailure(description: "storectl insert: \(result.status) \(result.stderr)") }
    }

    /// The store's last commit sequence, as `storectl info --format json` reports it.
    func lastSequence() throws -> Int64 {
        let result = try storectl(["info", "--format", "json"])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let sequence = (object["last_change_seq"] as? NSNumber)?.int64Value
        else { throw ChildFailure(description: "storectl info: \(result.status) \(result.stdout) \(result.stderr)") }
        return sequence
    }
}
