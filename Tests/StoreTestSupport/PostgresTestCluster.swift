import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL server of this test process, found or started once, the first time a test asks for it.
///
/// - `OBSERVABLE_STORE_POSTGRES_URL` set: that server.
/// - Else, when a PostgreSQL server is installed (`/usr/lib/postgresql/*/bin/initdb`): a private throwaway cluster on a
///   free loopback port (`Tools/postgres-cluster run`, in a session of its own so that Ctrl-C reaches it only through
///   this process), shared by every suite. It serves until the pipe this process holds to its standard input closes,
///   which the kernel does when this process ends in any way (a normal end, Ctrl-C, a crash, `kill -9`); it then stops
///   the server and removes its directory. Its URL is put in the environment, so child processes see it too.
/// - Else: none, and the PostgreSQL tests are skipped with ``PostgresTestServer/skipReason``.
enum PostgresTestCluster {
    /// What was found or started.
    enum Outcome {
        case server(url: String)
        case notInstalled
        case failed(String)
    }

    /// The outcome, decided once.
    static let outcome: Outcome = findOrStart()

    /// The script that runs a cluster, in this repository (from this file's real path: the integration packages'
    /// test support links to it).
    package static let script = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/postgres-cluster")

    /// The running script and the write end of the pipe to its standard input, kept open for the life of the process.
    nonisolated(unsafe) private static var running: (process: Process, stdin: FileHandle)?

    private static func findOrStart() -> Outcome {
        if let url = ProcessInfo.processInfo.environment[PostgresTestServer.environmentVariable], !url.isEmpty {
            return .server(url: url)
        }
        guard isServerInstalled else { return .notInstalled }
        do {
            let url = try startCluster()
            setenv(PostgresTestServer.environmentVariable, url, 1)
            return .server(url: url)
        } catch {
            return .failed("could not start a PostgreSQL cluster for the tests with \(script.path) run: \(error)")
        }
    }

    /// Whether PostgreSQL's server programs are installed where Debian puts them (what `Tools/postgres-cluster` runs).
    private static var isServerInstalled: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
    }

    /// Starts `Tools/postgres-cluster run` on a new directory and a free port; returns the URL it printed.
    private static func startCluster() throws -> String {
        let port = try freeLoopbackPort()
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("observable-store-postgres-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ClusterError("mkdtemp failed: errno \(errno)") }
        let directory = String(cString: made)
        // The server runs as the `postgres` user when this runs as root: it must reach the directory.
        chmod(directory, 0o755)

        let process = Process()
        let setsid = URL(fileURLWithPath: "/usr/bin/setsid")
        if FileManager.default.isExecutableFile(atPath: setsid.path) {
            process.executableURL = setsid
            process.arguments = [script.path, "run", directory, String(port)]
        } else {
            process.executableURL = script
            process.arguments = ["run", directory, String(port)]
        }
        // Only the script may hold the pipes: a child process of another test that inherited the write end of its
        // standard input would keep the cluster alive after this process ended. So they are made close-on-exec
        // from the start, with no moment in which another thread's child could inherit them; the script
        // gets its ends as its standard input and output, which the exec keeps.
        let input = try channel()
        let output = try channel()
        process.standardInput = input.read
        process.standardOutput = output.write
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        running = (process, input.write)
        try? input.read.close()
        try? output.write.close()

        // The script prints the URL once the server accepts connections (pg_ctl waits at most 60 s), or ends (it
        // then removes the directory itself).
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            // What the pipe holds now, waiting for some (the script keeps its output open while it serves).
            let chunk = output.read.availableData
            if chunk.isEmpty { break }  // the script ended
            line.append(chunk)
        }
        try? output.read.close()
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("postgres://") else {
            throw ClusterError("it printed no URL (\(text.isEmpty ? "nothing" : text)); its error is above")
        }
        return text
    }

    /// A channel whose two ends are closed on exec from their creation: a Unix socket pair (`pipe2` is not in Swift's
    /// Glibc module), used one way, as a pipe.
    private static func channel() throws -> (read: FileHandle, write: FileHandle) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw ClusterError("socketpair failed: errno \(errno)")
        }
        return (FileHandle(fileDescriptor: ends[0], closeOnDealloc: true), FileHandle(fileDescriptor: ends[1], closeOnDealloc: true))
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice for port 0).
    package static func freeLoopbackPort() throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw ClusterError("socket failed: errno \(errno)") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(socketDescriptor, socketAddress, length) == 0 && getsockname(socketDescriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw ClusterError("could not bind a loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Why the cluster did not start.
    package struct ClusterError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
