import Foundation
import Testing

/// What one child run measured: its exit status and its peak resident set (its own `VmHWM`).
struct PeakMemoryRun: CustomStringConvertible {
    var status: Int32
    var peakKilobytes: Int
    var stderr: String

    var description: String { "exit \(status), peak RSS \(peakKilobytes) KB, stderr: \(stderr.prefix(500))" }
}

/// Runs `executable` with `arguments`, its stdout to /dev/null (so the measure is storectl's, not a reader's),
/// and returns its peak RSS: the high-water mark of its own memory (`VmHWM` in `/proc/PID/status`), read every
/// few milliseconds while it runs (a high-water mark, so a late read includes every earlier peak). Not
/// `wait4`'s `ru_maxrss`: `posix_spawn` starts the child on the test process's memory (`CLONE_VM`) and Linux
/// keeps that memory's high-water mark in the child's `ru_maxrss` across `exec`, so it would report the test
/// process's size whenever that is larger. Killed after `timeout` seconds (status -1).
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
    var peak = 0
    while wait4(pid, &status, WNOHANG, &usage) == 0 {
        peak = max(peak, highWaterKilobytes(of: pid))
        if Date() > deadline {
            kill(pid, SIGKILL)
            _ = wait4(pid, &status, 0, &usage)
            return PeakMemoryRun(status: -1, peakKilobytes: peak, stderr: "killed after \(timeout) s")
        }
        usleep(2_000)
    }
    let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
    let exited = status & 0x7F == 0
    return PeakMemoryRun(status: exited ? (status >> 8) & 0xFF : -1, peakKilobytes: peak, stderr: stderr)
}

/// `VmHWM` of process `pid` in KiB (0 when it cannot be read, e.g. the process has just exited). Read with
/// `read(2)`: a /proc file has no size for Foundation's file reading to go by.
private func highWaterKilobytes(of pid: pid_t) -> Int {
    let descriptor = open("/proc/\(pid)/status", O_RDONLY)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    let count = read(descriptor, &bytes, bytes.count)
    guard count > 0 else { return 0 }
    let status = String(decoding: bytes[..<count], as: UTF8.self)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
    return Int(String(line.filter(\.isNumber))) ?? 0  // "VmHWM:\t   12345 kB"
}
