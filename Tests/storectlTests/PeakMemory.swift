import Foundation
import Testing

/// What one child run measured: its exit status and its peak resident set (`ru_maxrss` from `wait4`).
struct PeakMemoryRun: CustomStringConvertible {
    var status: Int32
    var peakKilobytes: Int
    var stderr: String

    var description: String { "exit \(status), peak RSS \(peakKilobytes) KB, stderr: \(stderr.prefix(500))" }
}

/// Runs `executable` with `arguments`, its stdout to /dev/null (so the measure is storectl's, not a reader's),
/// and returns its peak RSS as the kernel counted it for that child alone (`wait4`, not `RUSAGE_CHILDREN`,
/// which mixes in every other child of the test process). Killed after `timeout` seconds (status -1).
func peakMemory(of executable: URL, _ arguments: [String], timeout: Double = 120) throws -> PeakMemoryRun {
    let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("peak-\(UUID().uuidString).err").path
    defer { try? FileManager.default.removeItem(atPath: errorFile) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let environment = childEnvironment().map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in environment { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environment)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    let deadline = Date().addingTimeInterval(timeout)
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, WNOHANG, &usage) == 0 {
        if Date() > deadline {
            kill(pid, SIGKILL)
            _ = wait4(pid, &status, 0, &usage)
            return PeakMemoryRun(status: -1, peakKilobytes: usage.ru_maxrss, stderr: "killed after \(timeout) s")
        }
        usleep(10_000)
    }
    let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
    let exited = status & 0x7F == 0
    return PeakMemoryRun(status: exited ? (status >> 8) & 0xFF : -1, peakKilobytes: usage.ru_maxrss, stderr: stderr)
}
