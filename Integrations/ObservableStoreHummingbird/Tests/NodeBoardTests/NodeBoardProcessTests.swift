import Foundation
import Synchronization
import SSEWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `node-board` binary itself: the start-up refusal, `--port 0`, and a graceful exit on SIGTERM.
@Suite(.timeLimit(.minutes(10)))
struct NodeBoardProcessTests {
    /// Text a pipe delivered so far.
    final class CollectedText: Sendable {
        private let text = Mutex("")
        var value: String { text.withLock { $0 } }

        /// Collects what `pipe` delivers.
        init(_ pipe: Pipe) {
            pipe.fileHandleForReading.readabilityHandler = { [self] handle in
                let data = handle.availableData
                text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    /// A running `node-board` with its output collected.
    final class BoardProcess: Sendable {
        let process: Process
        let stdout: CollectedText
        let stderr: CollectedText

        init(arguments: [String], environment: [String: String] = [:]) throws {
            let binary = Bundle.main.bundleURL.appendingPathComponent("node-board")
            try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build node-board first")
            process = Process()
            process.executableURL = binary
            process.arguments = arguments
            var inherited = ProcessInfo.processInfo.environment
            inherited["NODE_BOARD_TOKEN"] = nil
            process.environment = inherited.merging(environment) { $1 }
            let (outPipe, errorPipe) = (Pipe(), Pipe())
            stdout = CollectedText(outPipe)
            stderr = CollectedText(errorPipe)
            process.standardOutput = outPipe
            process.standardError = errorPipe
            try process.run()
        }

        /// Waits until `condition` holds, for at most `timeout`.
        func wait(for timeout: Duration, until condition: () -> Bool) async throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                if ContinuousClock.now > deadline { return false }
                try await Task.sleep(for: .milliseconds(20))
            }
            return true
        }

        /// Waits for the process to exit and returns its status (nil after `timeout`, the process killed).
        func exitStatus(within timeout: Duration) async throws -> Int32? {
            guard try await wait(for: timeout, until: { !process.isRunning }) else {
                process.terminate()
                return nil
            }
            return process.terminationStatus
        }

        /// Waits for the process to exit, and for its last output: its status and its stderr's lines.
        func exitWithErrorLines(within timeout: Duration) async throws -> (status: Int32?, lines: [Substring]) {
            let status = try await exitStatus(within: timeout)
            try await Task.sleep(for: .milliseconds(100))  // the last output
            return (status, stderr.value.split(separator: "\n"))
        }

        /// The port of the first line, `node-board listening on http://127.0.0.1:PORT`, once printed.
        func listeningPort(within timeout: Duration) async throws -> Int {
            let started = try await wait(for: timeout) { stdout.value.contains("\n") }
            try #require(started, "no start line; stderr: \(stderr.value)")
            let prefix = "node-board listening on http://127.0.0.1:"
            let line = stdout.value.split(separator: "\n").first.map(String.init) ?? ""
            try #require(line.hasPrefix(prefix), "start line: \(line)")
            return try #require(Int(line.dropFirst(prefix.count)))
        }
    }

    static func temporaryStorePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("node-board-\(UUID()).sqlite").path
    }

    @Test func nonLoopbackHostWithoutATokenExits64() async throws {
        let path = NodeBoardProcessTests.temporaryStorePath()
        let board = try BoardProcess(arguments: ["--db", path, "--host", "0.0.0.0"])
        let (status, lines) = try await board.exitWithErrorLines(within: .seconds(30))
        #expect(status == 64)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("refusing to listen on 0.0.0.0") == true)
        #expect(lines.first?.contains("NODE_BOARD_TOKEN") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func picksAFreePortAndExitsZeroOnASignal(signal: Int32) async throws {
        let path = NodeBoardProcessTests.temporaryStorePath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let board = try BoardProcess(arguments: ["--db", path, "--port", "0"])
        let port = try await board.listeningPort(within: .seconds(30))
        #expect(port > 0)
        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
        #expect(FileManager.default.fileExists(atPath: path))
        kill(board.process.processIdentifier, signal)
        #expect(try await board.exitStatus(within: .seconds(10)) == 0)
    }

    @Test func eventsStreamTheCommitsOfTheAPI() async throws {
        let path = NodeBoardProcessTests.temporaryStorePath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let board = try BoardProcess(arguments: ["--db", path, "--port", "0"])
        defer { board.process.terminate() }
        let port = try await board.listeningPort(within: .seconds(30))
        let events = try SSEConnection(port: port, path: "/events?since=0")
        defer { events.close() }
        let head = try events.head(timeout: 10)
        #expect(head.status == 200)
        #expect((head.headers["content-type"] ?? "").hasPrefix("text/event-stream"))
        #expect(try events.nextFrame(timeout: 10).retry == 1000)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/nodes")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"live","x":1,"y":2}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        let frame = try events.nextEvent(timeout: 10)
        #expect(frame.id == "1")
        #expect(frame.event == "commit")
        #expect(frame.data.contains(#""origin":"node-board""#))
        #expect(frame.data.contains(#""name":"live""#))
    }

    @Test func aStoreThatCannotBeOpenedExits1WithOneLine() async throws {
        let path = "/nonexistent-\(UUID())/board.sqlite"
        let board = try BoardProcess(arguments: ["--db", path, "--port", "0"])
        let (status, lines) = try await board.exitWithErrorLines(within: .seconds(30))
        #expect(status == 1)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("node-board: cannot open the store \(path)") == true)
        #expect(board.stdout.value.isEmpty)
    }

    @Test func aPortOutOfRangeExits64() async throws {
        let board = try BoardProcess(arguments: ["--db", NodeBoardProcessTests.temporaryStorePath(), "--port", "70000"])
        let (status, lines) = try await board.exitWithErrorLines(within: .seconds(30))
        #expect(status == 64)
        #expect(lines.first == "Error: --port must be in 0...65535, not 70000")
    }
}
