import Foundation
import ObservableStore
import StoreTestSupport
import Testing

// Helpers for the storectl end-to-end tests: run the real binary (with stdin, a working directory and a
// time limit), read its NDJSON and its one-line errors, and look at the store with the library afterwards.

/// What one run of a child process did.
struct CLIResult: Sendable, CustomStringConvertible {
    /// The exit status (the signal number when `signaled`).
    var status: Int32
    /// Everything written to stdout.
    var stdout: String
    /// Everything written to stderr.
    var stderr: String
    /// True when the process died of a signal: a crash, or the kill after the time limit.
    var signaled: Bool
    /// True when the process was killed because it ran longer than its time limit.
    var timedOut: Bool

    init(status: Int32, stdout: String, stderr: String, signaled: Bool = false, timedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.signaled = signaled
        self.timedOut = timedOut
    }

    /// The result of a ``RunningProcess`` or ``run(_:_:environment:)``.
    init(_ result: ProcessResult) {
        self.init(
            status: result.status, stdout: result.stdout, stderr: result.stderr, signaled: result.signaled,
            timedOut: result.timedOut)
    }

    /// stdout's non-blank lines.
    var lines: [String] { Self.nonBlankLines(stdout) }

    /// stderr's non-blank lines.
    var stderrLines: [String] { Self.nonBlankLines(stderr) }

    /// For failure messages.
    var description: String {
        "exit \(status)\(signaled ? " (signal)" : "")\(timedOut ? " (killed after its time limit)" : "")\n"
            + "--- stdout:\n\(stdout.prefix(3000))\n--- stderr:\n\(stderr.prefix(3000))"
    }

    /// Lines split at LF or CRLF (a CSV writer may use either), without the blank ones.
    private static func nonBlankLines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}

/// A decoded JSON object (one NDJSON line, a `get` record, `info`).
typealias JSONObject = [String: Any]

/// An error as storectl reports it: `storectl: error[CODE]: MESSAGE`, or `{"error":{"code":…,"exit":…,"message":…}}`.
struct CLIError: Sendable {
    var code: String
    /// The `exit` member of the JSON form; nil for the text form.
    var exit: Int?
    var message: String
    /// True for the JSON form.
    var isJSON: Bool
}

/// The environment of every child: the test's own, without `STORECTL_DB`, with `NO_COLOR=1`, then `extra`.
func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["STORECTL_DB"] = nil
    environment["NO_COLOR"] = "1"
    environment.merge(extra) { $1 }
    return environment
}

/// Runs `executable` to completion: writes `stdin` (if any) to a pipe and closes it, collects stdout and
/// stderr, and kills the whole process group when it runs longer than `timeout` seconds.
/// Without `stdin`, stdin is /dev/null (not a TTY).
func runChild(
    _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
    directory: URL? = nil, timeout: Double = defaultProcessSeconds
) throws -> CLIResult {
    let child = try RunningProcess(
        executable: executable, arguments, environment: childEnvironment(environment),
        input: stdin.map { .bytes($0) } ?? .nothing, directory: directory)
    return CLIResult(child.wait(timeout: timeout))
}

/// The storectl binary built with the tests.
func storectlURL() throws -> URL {
    try builtProduct("storectl")
}

/// Runs storectl with `arguments`; `stdin` is written to a pipe and closed (nil: /dev/null).
func cli(
    _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: URL? = nil,
    timeout: Double = 120
) throws -> CLIResult {
    try runChild(
        storectlURL(), arguments, stdin: stdin.map { Data($0.utf8) }, environment: environment, directory: directory,
        timeout: timeout)
}

/// Runs `script` with `/bin/sh -c` (for pipelines such as `storectl … | head -1`).
func shell(_ script: String, directory: URL? = nil, timeout: Double = 120) throws -> CLIResult {
    try runChild(URL(fileURLWithPath: "/bin/sh"), ["-c", script], directory: directory, timeout: timeout)
}

// MARK: - Stores

/// `<directory>/store.sqlite`.
func storePath(in directory: URL, _ name: String = "store.sqlite") -> String {
    directory.appendingPathComponent(name).path
}

/// Creates a store with `storectl init` and returns its path.
func initStore(
    in directory: URL, _ name: String = "store.sqlite", sourceLocation: SourceLocation = #_sourceLocation
) throws -> String {
    let path = storePath(in: directory, name)
    let result = CLIResult(try run("storectl", ["init", "--db", path], environment: ["NO_COLOR": "1"]))
    try #require(result.status == 0, "storectl init failed: \(result)", sourceLocation: sourceLocation)
    return path
}

/// A configuration that neither validates nor migrates: for looking at any store without changing its schema.
var inspectionConfiguration: SQLiteStoreConfiguration {
    var configuration = SQLiteStoreConfiguration()
    configuration.migrationPolicy = .none
    return configuration
}

/// Opens the store at `path` without migrating it, runs `body`, and closes it.
@discardableResult
func withStore<T>(_ path: String, _ body: (SQLiteStore) throws -> T) throws -> T {
    let store = try SQLiteStore(path: path, configuration: inspectionConfiguration)
    defer { store.close() }
    return try body(store)
}

/// `SELECT count(*) FROM table`, through the library.
func rowCount(_ path: String, _ table: String = "nodes") throws -> Int64 {
    try withStore(path) { store in
        let value = try store.read { try $0.fetchValue("SELECT count(*) FROM \"\(table)\"") }
        guard case .integer(let count)? = value else { return -1 }
        return count
    }
}

/// Every node, by id, through the library.
func allNodes(_ path: String) throws -> [NodeVO] {
    try withStore(path) { store in
        try store.read { try $0.fetchAll(NodeVO.self, sql: "SELECT * FROM nodes ORDER BY id") }
    }
}

/// Inserts `nodes` with the library, in one transaction.
func seedNodes(_ path: String, _ nodes: [NodeVO]) throws {
    try withStore(path) { store in
        _ = try store.repository(NodeVO.self).insertAll(nodes)
    }
}

/// Applied versions of the library's own migration set.
func appliedStoreVersions(_ path: String) throws -> [Int] {
    try withStore(path) { store in
        try store.appliedMigrations().filter { $0.set == MigrationSet.storeSetName }.map(\.version)
    }
}

/// Four digits, e.g. "0004".
func fourDigits(_ version: Int) -> String {
    Migration.format(version)
}

// MARK: - Reading output

/// Decodes `text` as a JSON object.
func jsonObject(_ text: some StringProtocol, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
    let value = try JSONSerialization.jsonObject(with: Data(String(text).utf8), options: [.fragmentsAllowed])
    return try #require(value as? JSONObject, "not a JSON object: \(text)", sourceLocation: sourceLocation)
}

/// Decodes `text` as a JSON array of objects.
func jsonArray(_ text: some StringProtocol, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONObject] {
    let value = try JSONSerialization.jsonObject(with: Data(String(text).utf8), options: [.fragmentsAllowed])
    return try #require(value as? [JSONObject], "not a JSON array of objects: \(text)", sourceLocation: sourceLocation)
}

/// Decodes every stdout line as a JSON object (NDJSON).
func jsonLines(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONObject] {
    try result.lines.map { try jsonObject($0, sourceLocation: sourceLocation) }
}

/// Whether the `"key":` members appear in `line` in the order of `keys` (JSON objects keep column order).
func keysAppearInOrder(_ line: String, _ keys: [String]) -> Bool {
    var position = line.startIndex
    for key in keys {
        guard let range = line.range(of: "\"\(key)\":", range: position..<line.endIndex) else { return false }
        position = range.upperBound
    }
    return true
}

/// The first error line on stderr, in either form.
func parseError(_ stderr: String) -> CLIError? {
    for line in stderr.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
        if line.hasPrefix("{"),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? JSONObject,
            let error = object["error"] as? JSONObject
        {
            return CLIError(
                code: error["code"] as? String ?? "", exit: error["exit"] as? Int, message: error["message"] as? String ?? "",
                isJSON: true)
        }
        let prefix = "storectl: error["
        if line.hasPrefix(prefix), let close = line.range(of: "]: ") {
            let code = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<close.lowerBound])
            return CLIError(code: code, exit: nil, message: String(line[close.upperBound...]), isJSON: false)
        }
    }
    return nil
}

/// Text that only a crash or an unhandled Swift error prints.
private let crashMarkers = ["Fatal error", "Stack dump", "Current stack trace", "Backtrace", "Swift runtime failure"]

/// Expects a clean exit 0.
func expectSuccess(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == 0 && !result.signaled && !result.timedOut, "\(result)", sourceLocation: sourceLocation)
}

/// Expects exit `exit` with an error line of `code` whose message contains every fragment; returns the error.
@discardableResult
func expectFailure(
    _ result: CLIResult, exit: Int32, code: String? = nil, _ fragments: String...,
    sourceLocation: SourceLocation = #_sourceLocation
) -> CLIError? {
    #expect(result.status == exit, "expected exit \(exit): \(result)", sourceLocation: sourceLocation)
    #expect(!result.signaled && !result.timedOut, "\(result)", sourceLocation: sourceLocation)
    for marker in crashMarkers {
        #expect(!result.stderr.contains(marker), "a crash or stack trace on stderr: \(result)", sourceLocation: sourceLocation)
    }
    guard let error = parseError(result.stderr) else {
        Issue.record("no `storectl: error[…]` line on stderr: \(result)", sourceLocation: sourceLocation)
        return nil
    }
    if let code {
        #expect(error.code == code, "error code: \(result)", sourceLocation: sourceLocation)
    }
    if let reported = error.exit {
        #expect(reported == Int(exit), "the JSON error's exit member: \(result)", sourceLocation: sourceLocation)
    }
    for fragment in fragments {
        #expect(
            error.message.contains(fragment), "message lacks \"\(fragment)\": \(error.message)", sourceLocation: sourceLocation)
    }
    return error
}

/// NDJSON of `count` valid nodes, one per line: `{"name":"n0","x":0,"y":0}` …
func nodeLines(_ count: Int, offset: Int = 0) -> [String] {
    (offset..<(offset + count)).map { #"{"name":"n\#($0)","x":\#($0),"y":0}"# }
}

/// A number in decoded JSON (integral reals may come as 1 or 1.0).
func number(_ value: Any?) -> Double? {
    if let double = value as? Double { return double }
    if let int = value as? Int { return Double(int) }
    return nil
}

/// Holds a store's write lock on another thread, from `init` until `release()`: what a busy writer looks like.
final class WriteLockHolder: Sendable {
    struct NotLocked: Error {}

    private let releaseSignal = DispatchSemaphore(value: 0)
    private let job: ThreadJob<Bool>

    /// Waits (at most 30 s) until the lock is held; throws when it cannot be taken.
    init(_ store: SQLiteStore) throws {
        let locked = DispatchSemaphore(value: 0)
        let releaseSignal = self.releaseSignal
        job = ThreadJob { () -> Bool in
            (try? store.write { _ -> Void in
                locked.signal()
                releaseSignal.wait(seconds: helperWaitSeconds)
            }) != nil
        }
        guard locked.wait(timeout: .now() + 30) == .success else { throw NotLocked() }
    }

    /// Lets the holding write commit.
    func release() { releaseSignal.signal() }

    /// Waits for the holding write to end (at most the helper's wait and 20 s); whether it committed.
    func finished() -> Bool { job.wait(seconds: helperWaitSeconds + defaultWaitSeconds) ?? false }
}
