import Foundation

/// Makes `path` unwritable for this process and returns the way back, or nil when that is not possible here.
///
/// For an ordinary user chmod does it. Root writes through any permission bits, so for root the file or
/// directory gets the immutable attribute (`chattr +i`: ext4, xfs, btrfs), which stops root too.
public func makeUnwritable(_ path: String, isDirectory: Bool) -> (() -> Void)? {
    let restore: () -> Void
    if getuid() == 0 {
        guard runQuietly(["chattr", "+i", path]) else { return nil }
        restore = { _ = runQuietly(["chattr", "-i", path]) }
    } else {
        guard chmod(path, isDirectory ? 0o555 : 0o444) == 0 else { return nil }
        restore = {
            _ = chmod(path, isDirectory ? 0o755 : 0o644)
            // SQLite creates `-wal` and `-shm` with the database file's mode: make those writable again too.
            if !isDirectory {
                for suffix in ["-wal", "-shm"] { _ = chmod(path + suffix, 0o644) }
            }
        }
    }
    // Still writable (a capability, an odd file system): a test would test nothing.
    guard access(path, W_OK) != 0 else {
        restore()
        return nil
    }
    return restore
}

/// Runs a command found on PATH with no input or output; whether it exited 0.
private func runQuietly(_ arguments: [String]) -> Bool {
    guard let child = try? RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/env"), arguments) else { return false }
    let result = child.wait(timeout: 30)
    return !result.signaled && !result.timedOut && result.status == 0
}
