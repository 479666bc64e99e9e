import ArgumentParser
import Foundation
import ObservableStore
import SSEWire
import Synchronization

/// `sse-load run`: N SSE clients against a running node-board, writer processes making commits on its store;
/// checks that every client received every commit exactly once, in order, and reports memory and latency.
struct LoadRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "SSE clients and writer processes against a running node-board; exit 1 on a lost, doubled or out-of-order event.",
        discussion: """
            Example: sse-load run --port 8080 --db board.sqlite --clients 500 --commits 2000 --writers 2 --server-pid 4242
            """
    )

    @Option(help: "node-board's address (IPv4).")
    var host = "127.0.0.1"

    @Option(help: "node-board's port.")
    var port: Int

    @Option(help: "The store node-board serves (the writers write to it).")
    var db: String

    @Option(help: "Concurrent SSE clients.")
    var clients = 500

    @Option(help: "Commits in all, shared between the writers.")
    var commits = 2_000

    @Option(help: "Writer processes (each `sse-load write`).")
    var writers = 2

    @Option(help: "Commits per second of each writer (0: as fast as possible).")
    var rate = 250.0

    @Option(help: "How the writers commit: store (through the library, in their own process; node-board notices the commits with its change-feed poll) or api (POST /api/nodes: committed in node-board's process).")
    var writeVia = WritePath.store

    @Option(help: "Threads reading the clients' sockets.")
    var threads = 4

    @Option(help: "node-board's process id, to read its memory (VmRSS) before and with the clients.")
    var serverPid: Int32?

    @Option(help: "Seconds to wait for the clients to receive everything.")
    var timeout = 120.0

    func validate() throws {
        guard clients >= 1, writers >= 1, commits >= writers, threads >= 1 else {
            throw ValidationError("--clients, --writers and --threads must be at least 1, --commits at least --writers")
        }
    }

    func run() throws {
        raiseDescriptorLimit()
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let start = try store.lastSequence()
        let memoryBefore = serverPid.flatMap(residentKilobytes)

        let groups = try connectClients(resumingAfter: start)
        let deadline = Date().addingTimeInterval(30)
        while groups.reduce(0, { $0 + $1.headsReceived }) < clients {
            guard Date() < deadline else { throw ValidationError("not every client got its response head within 30 s") }
            usleep(10_000)
        }
        usleep(500_000)
        let memoryConnected = serverPid.flatMap(residentKilobytes)

        let began = Date()
        try runWriters()
        let written = Date().timeIntervalSince(began)
        let end = try store.lastSequence()
        for group in groups { group.target.store(end, ordering: .relaxed) }
        let records = groups.flatMap { $0.finish(within: timeout) }
        let memoryAfter = serverPid.flatMap(residentKilobytes)

        let report = LoadReport(
            records: records, start: start, end: end, writers: writers, writeVia: writeVia, rate: rate, writeSeconds: written,
            memory: (memoryBefore, memoryConnected, memoryAfter))
        print(report.text)
        if !report.passed { throw ExitCode(1) }
    }

    /// Connects the clients (each with `Last-Event-ID: sequence`) and starts the groups reading them.
    private func connectClients(resumingAfter sequence: Int64) throws -> [LoadClientGroup] {
        let request = SSEConnection.request(host: host, port: port, path: "/events", headers: ["Last-Event-ID": "\(sequence)"])
        var descriptors: [Int32] = []
        for _ in 0..<clients {
            let descriptor = try SSEConnection.connect(host: host, port: port)
            try SSEConnection.send(request, to: descriptor)
            descriptors.append(descriptor)
        }
        let groupCount = min(threads, clients)
        let groups = (0..<groupCount).map { group in
            LoadClientGroup(
                descriptors: stride(from: group, to: descriptors.count, by: groupCount).map { descriptors[$0] },
                resumedAfter: sequence)
        }
        for group in groups { group.start() }
        return groups
    }

    /// Starts the writer processes (this executable's `write`), waits for them, and fails if one failed.
    private func runWriters() throws {
        let share = commits / writers
        let children = try (0..<writers).map { index in
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            let count = index == 0 ? commits - share * (writers - 1) : share
            let target = writeVia == .store ? ["--db", db] : ["--host", host, "--port", "\(port)"]
            child.arguments = ["write"] + target + ["--commits", "\(count)", "--rate", "\(rate)"]
            try child.run()
            return child
        }
        for child in children {
            child.waitUntilExit()
            guard child.terminationStatus == 0 else {
                throw ValidationError("a writer process failed (exit \(child.terminationStatus))")
            }
        }
    }
}

/// How `sse-load run`'s writer processes commit.
enum WritePath: String, ExpressibleByArgument {
    case store, api
}

/// The resident memory of process `pid` in KiB (VmRSS in /proc/PID/status), or nil.
func residentKilobytes(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
    return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
}

/// Raises the soft limit on open files to the hard limit (500 clients need 500 sockets).
private func raiseDescriptorLimit() {
    var limit = rlimit()
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0 else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(resource, &limit)
}
