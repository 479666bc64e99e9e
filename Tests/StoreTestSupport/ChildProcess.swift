import Foundation

/// The result of a finished child process.
public struct ProcessResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to stdout.
    public var stdout: String
    /// Everything written to stderr.
    public var stderr: String
}

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

/// Starts a built product with `arguments`; call ``RunningProcess/wait()`` for its result.
public final class RunningProcess: @unchecked Sendable {
    // @unchecked: `process` and the pipes are configured before `run()` and only read afterwards.
    private let process = Process()
    private let out = Pipe()
    private let err = Pipe()

    /// Starts `product` with `arguments`.
    public init(_ product: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = try builtProduct(product)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try process.run()
    }

    /// Sends SIGKILL: the process dies at once, wherever it is.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process to end and collects its output.
    public func wait() -> ProcessResult {
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Runs a built product to completion.
public func run(_ product: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
    try RunningProcess(product, arguments, environment: environment).wait()
}

/// Runs `sql` with the `sqlite3` shell on the file at `path`, as a program that does not log its changes
/// would write; waits up to 10 s for a lock (`.timeout`). Throws when the shell is not installed.
public func runSQLiteShell(_ path: String, _ sql: String) throws -> ProcessResult {
    let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"]
    guard let shell = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "sqlite3 (apt-get install sqlite3; .ci/run installs it)"])
    }
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: shell)
    process.arguments = ["-cmd", ".timeout 10000", path, sql]
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: text, as: UTF8.self), stderr: "")
}

/// Quotes `text` for `/bin/sh`.
public func quotedForShell(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Runs `script` with `/bin/sh -c` (stdout discarded), killing it after `timeout` seconds; its exit status,
/// whether a signal ended it, and its stderr.
public func runShellScript(_ script: String, timeout: Double = 180) throws -> (status: Int32, signaled: Bool, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    if exited.wait(timeout: .now() + timeout) == .timedOut {
        process.terminate()
        exited.wait()
    }
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    return (process.terminationStatus, process.terminationReason == .uncaughtSignal, String(decoding: stderr, as: UTF8.self))
}
