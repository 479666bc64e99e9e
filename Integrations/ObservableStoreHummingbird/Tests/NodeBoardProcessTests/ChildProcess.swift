import Foundation

/// A child process whose stdout and stderr are collected as they come, so a test can wait for a line (such as
/// node-board's "listening on") and read everything at the end. Every wait has a timeout.
final class ChildProcess: @unchecked Sendable {
    // @unchecked: `process` is set up in init and not changed; `output` and `errors` are guarded by `lock`.
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private let exited = DispatchSemaphore(value: 0)
    private let readers = DispatchGroup()

    /// Starts `executable` with `arguments`; `environment` replaces this process's (nil: inherit it).
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        collect(outPipe.fileHandleForReading) { $0.output.append($1) }
        collect(errPipe.fileHandleForReading) { $0.errors.append($1) }
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// stdout so far.
    var stdout: String { lock.withLock { String(decoding: output, as: UTF8.self) } }

    /// stderr so far.
    var stderr: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits at most `timeout` seconds for the process to end; its exit status and whether a signal ended it,
    /// or nil if it still runs (the caller decides whether to kill it).
    func waitForExit(timeout: Double) -> (status: Int32, signaled: Bool)? {
        guard exited.wait(timeout: .now() + timeout) == .success else { return nil }
        exited.signal()  // later calls see it too
        _ = readers.wait(timeout: .now() + 5)
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    /// Runs to completion (killed after `timeout` seconds): the exit status, stdout, stderr.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 60)
        throws -> (status: Int32, stdout: String, stderr: String)
    {
        let child = try ChildProcess(executable, arguments, environment: environment)
        guard let exit = child.waitForExit(timeout: timeout) else {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 10)
            throw ChildFailure(description: "\(executable) \(arguments) ran over \(timeout) s; stderr: \(child.stderr)")
        }
        return (exit.status, child.stdout, child.stderr)
    }

    /// Waits at most `timeout` seconds for stdout or stderr to match `pattern` (a regular expression); returns the
    /// first capture group of the first match.
    func waitForOutput(matching pattern: String, timeout: Double) throws -> String {
        let expression = try NSRegularExpression(pattern: pattern)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = stdout + stderr
            let range = NSRange(text.startIndex..., in: text)
            if let match = expression.firstMatch(in: text, range: range), let captured = Range(match.range(at: 1), in: text) {
                return String(text[captured])
            }
            if !process.isRunning, readers.wait(timeout: .now()) == .success {
                throw ChildFailure(description: "the process ended (status \(process.terminationStatus)) before printing /\(pattern)/: \(text)")
            }
            usleep(10_000)
        }
        throw ChildFailure(description: "no /\(pattern)/ within \(timeout) s in: \(stdout + stderr)")
    }

    /// Reads `handle` on a thread of its own until end of file, appending through `append` under the lock.
    private func collect(_ handle: FileHandle, _ append: @escaping @Sendable (ChildProcess, Data) -> Void) {
        readers.enter()
        Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.withLock { append(self, data) }
            }
            readers.leave()
        }.start()
    }
}

/// A child process that did not do what the test waited for.
struct ChildFailure: Error, CustomStringConvertible {
    /// What happened, with the child's output.
    var description: String
}
