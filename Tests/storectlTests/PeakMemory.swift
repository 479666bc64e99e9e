import Foundation

/// How a child run for its memory ended: its exit status, its peak resident set size, and its stderr.
struct MeasuredRun: CustomStringConvertible {
    var status: Int32
    /// The child's peak RSS (`wait4`'s `ru_maxrss`), in bytes.
    var peakBytes: Int
    var stderr: String
    var timedOut: Bool

    var description: String {
        "exit \(status)\(timedOut ? " (killed after its time limit)" : ""), peak RSS \(peakBytes / 1024) KiB, stderr: \(stderr.prefix(2000))"
    }
}

/// Runs storectl with `arguments` (stdin /dev/null, stdout and stderr to files in `directory`) and returns its
/// own peak RSS, read with `wait4` for this one child (`RUSAGE_CHILDREN` would mix in every other child of the
/// test process). Killed after `timeout` seconds.
func runMeasuringPeakMemory(_ arguments: [String], in directory: URL, timeout: Double = 120) throws -> MeasuredRun {
    let executable = try storectlURL().path
    let stderrPath = directory.appendingPathComponent("stderr-\(UUID().uuidString).txt").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = childEnvironment().map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    var usage = rusage()
    let deadline = Date().addingTimeInterval(timeout)
    var timedOut = false
    while wait4(pid, &status, WNOHANG, &usage) == 0 {
        if Date() > deadline {
            kill(pid, SIGKILL)
            timedOut = true
            _ = wait4(pid, &status, 0, &usage)
            break
        }
        usleep(20_000)
    }
    let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    return MeasuredRun(status: exitStatus, peakBytes: Int(usage.ru_maxrss) * 1024, stderr: stderr, timedOut: timedOut)
}
