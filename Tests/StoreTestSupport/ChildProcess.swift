import Foundation

/// The result of a finished child process.
public struct ProcessResult: Sendable {
    /// The exit status (the signal number when ``signaled``).
    public var status: Int32
    /// Everything written to stdout.
    public var stdout: String
    /// Everything written to stderr.
    public var stderr: String
    /// True when the process died of a signal: a crash, a ``RunningProcess/kill()``, or the kill after the time limit.
    public var signaled: Bool = false
    /// True when the process was killed because it ran longer than its time limit.
    public var timedOut: Bool = false

    /// A result with these parts.
    public init(status: Int32, stdout: String, stderr: String, signaled: Bool = false, timedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.signaled = signaled
        self.timedOut = timedOut
    }
}

/// How long ``RunningProcess/wait(timeout:)`` lets a child run by default, in seconds.
public let defaultProcessSeconds: Double = 120

/// Locates an executable built with the test suite (e.g. "store-fixture", "storectl").
public func builtProduct(_ name: String) throws -> URL {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent(name),
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: candidates[0].path])
    }
    return found
}

/// What a child reads on stdin.
public enum ChildInput: Sendable {
    /// `/dev/null`: not a terminal, at end of file at once.
    case nothing
    /// These bytes through a pipe, closed afterwards.
    case bytes(Data)
    /// The file at this path.
    case file(String)
}

/// A child process; ``wait(timeout:)`` drains its stdout and stderr together and kills it when it runs too long.
///
/// For example:
///
/// ```swift
/// let child = try RunningProcess("store-fixture", ["write", path, "200"])
/// let result = child.wait()  // at most 120 s
/// #expect(result.status == 0, "\(result.stderr)")
/// ```
public final class RunningProcess: @unchecked Sendable {
    // @unchecked: `process`, the pipes and `input` are set up in `init` and not changed afterwards;
    // `result` is guarded by `resultLock`. `wait` reads the pipes from one thread at a time.
    private let process = Process()
    private let out: Pipe?
    private let err: Pipe?
    private let exited = DispatchSemaphore(value: 0)
    private let inputWriter: ThreadJob<Bool>?
    private let resultLock = NSLock()
    private var result: ProcessResult?

    /// Starts the built product `product` with `arguments`; `environment` is added to this process's.
    public convenience init(_ product: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        try self.init(
            executable: builtProduct(product), arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }

    /// Starts `executable` with `arguments`, exactly `environment` (nil: this process's), `input` on stdin and
    /// `directory` as its working directory. With `mergingOutput`, stderr goes into ``ProcessResult/stdout``
    /// (in the order written); with `discardingOutput`, both go to /dev/null.
    public init(
        executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: ChildInput = .nothing,
        directory: URL? = nil, mergingOutput: Bool = false, discardingOutput: Bool = false
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        out = discardingOutput ? nil : Pipe()
        err = discardingOutput || mergingOutput ? nil : Pipe()
        process.standardOutput = out ?? FileHandle.nullDevice
        process.standardError = err ?? out ?? FileHandle.nullDevice
        var inputPipe: Pipe?
        switch input {
        case .nothing: process.standardInput = FileHandle.nullDevice
        case .file(let path): process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        case .bytes:
            inputPipe = Pipe()
            process.standardInput = inputPipe
        }
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if case .bytes(let data) = input, let inputPipe {
            let handle = UncheckedHandle(inputPipe.fileHandleForWriting)
            inputWriter = ThreadJob { writeAndClose(data, to: handle.handle) }
        } else {
            inputWriter = nil
        }
    }

    /// Whether the child is still running.
    public var isRunning: Bool { process.isRunning }

    /// The child's process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Sends SIGKILL: the process dies at once, wherever it is.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process to end, reading stdout and stderr as they come (a child that fills one pipe
    /// while this reads the other cannot stall), and returns its result. After `timeout` seconds the child
    /// and its process group get SIGKILL and the result says ``ProcessResult/timedOut``. Later calls
    /// return the same result.
    public func wait(timeout: Double = defaultProcessSeconds) -> ProcessResult {
        resultLock.lock()
        defer { resultLock.unlock() }
        if let result { return result }
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        let descriptors = [out, err].compactMap { $0?.fileHandleForReading.fileDescriptor }
        var output = descriptors.map { _ in Data() }
        // Until both pipes are at end of file; after the kill, a little longer for what is still buffered.
        // Past that, something outside the process group holds a pipe: give up on the rest.
        drain(descriptors, into: &output, until: deadline) {
            timedOut = true
            killGroup()
        }
        if exited.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut {
            timedOut = true
            killGroup()
            _ = exited.wait(timeout: .now() + 10)
        }
        _ = inputWriter?.wait(seconds: 10)
        let running = process.isRunning
        let finished = ProcessResult(
            status: running ? -1 : process.terminationStatus,
            stdout: out == nil ? "" : String(decoding: output[0], as: UTF8.self),
            stderr: err == nil ? "" : String(decoding: output[output.count - 1], as: UTF8.self),
            signaled: !running && process.terminationReason == .uncaughtSignal, timedOut: timedOut)
        result = finished
        return finished
    }

    /// SIGKILL to the child and to its process group (Foundation's Process gives the child a group of its
    /// own, so a shell's pipeline goes too).
    private func killGroup() {
        let pid = process.processIdentifier
        _ = Foundation.kill(-pid, SIGKILL)
        _ = Foundation.kill(pid, SIGKILL)
    }
}

/// Reads every descriptor in `descriptors` into `output` until each is at end of file. At `deadline`, calls
/// `onTimeout` once (which kills the writers) and reads for 5 s more at most.
private func drain(_ descriptors: [Int32], into output: inout [Data], until deadline: Date, onTimeout: () -> Void) {
    var open = descriptors.map { _ in true }
    var limit = deadline
    var killed = false
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while open.contains(true) {
        let remaining = limit.timeIntervalSinceNow
        if remaining <= 0 {
            if killed { return }
            killed = true
            onTimeout()
            limit = Date().addingTimeInterval(5)
            continue
        }
        var polled = descriptors.indices.map { pollfd(fd: open[$0] ? descriptors[$0] : -1, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&polled, nfds_t(polled.count), Int32(min(remaining, 1) * 1000) + 1)
        if ready < 0 {
            if errno == EINTR { continue }
            return
        }
        for index in descriptors.indices where open[index] && polled[index].revents != 0 {
            let count = read(descriptors[index], &buffer, buffer.count)
            if count > 0 {
                output[index].append(contentsOf: buffer[0..<count])
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                open[index] = false
            }
        }
    }
}

/// A file handle handed to one other thread, its only user from then on.
private struct UncheckedHandle: @unchecked Sendable {
    // @unchecked: the creating thread stops using the handle once it has handed it over.
    let handle: FileHandle
    init(_ handle: FileHandle) { self.handle = handle }
}

/// Writes `data` and closes `handle`. SIGPIPE is blocked on this thread (a thread of its own, see
/// ``ThreadJob``), so a child that exits before reading everything makes the write fail with EPIPE instead
/// of killing the test process; the signal stays pending on this thread and goes away with it.
private func writeAndClose(_ data: Data, to handle: FileHandle) -> Bool {
    var pipeSignal = sigset_t()
    _ = sigemptyset(&pipeSignal)
    _ = sigaddset(&pipeSignal, SIGPIPE)
    _ = pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
    let written = (try? handle.write(contentsOf: data)) != nil
    try? handle.close()
    return written
}

/// Runs a built product to completion (at most `timeout` seconds).
public func run(
    _ product: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = defaultProcessSeconds
) throws -> ProcessResult {
    try RunningProcess(product, arguments, environment: environment).wait(timeout: timeout)
}

/// The `sqlite3` shell's path; throws when it is not installed.
public func sqliteShellPath() throws -> String {
    let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"]
    guard let shell = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "sqlite3 (apt-get install sqlite3; .ci/run installs it)"])
    }
    return shell
}

/// Runs `sql` with the `sqlite3` shell on the file at `path`, as a program that does not log its changes
/// would write; waits up to 10 s for a lock (`.timeout`). stderr is merged into stdout. Throws when the
/// shell is not installed.
public func runSQLiteShell(_ path: String, _ sql: String, timeout: Double = defaultProcessSeconds) throws -> ProcessResult {
    try RunningProcess(
        executable: URL(fileURLWithPath: sqliteShellPath()), ["-cmd", ".timeout 10000", path, sql], mergingOutput: true
    ).wait(timeout: timeout)
}

/// Quotes `text` for `/bin/sh`.
public func quotedForShell(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Runs `script` with `/bin/sh -c`, killing it (and its pipeline) after `timeout` seconds.
public func runShellScript(_ script: String, directory: URL? = nil, timeout: Double = 180) throws -> ProcessResult {
    try RunningProcess(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", script], directory: directory)
        .wait(timeout: timeout)
}
