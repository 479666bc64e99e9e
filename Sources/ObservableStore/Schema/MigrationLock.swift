import Foundation
import ObservableStoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An advisory `flock` on the sidecar file `<db>-migrate.lock`, so that two processes never migrate
/// the same store at once. The holder writes its pid and start time into the file for error messages.
///
/// Locks belong to the open file description: a second lock in the same process also waits.
final class MigrationLock {
    let path: String
    private let descriptor: Int32

    /// Takes the lock, polling until `timeout`; throws ``/ObservableStoreCore/StoreError/Code/busy`` naming the holder.
    init(databasePath: String, timeout: Duration) throws {
        path = databasePath + "-migrate.lock"
        // Assigned only once the lock is held: if acquiring throws, `init` has not finished and `deinit` (which
        // closes `descriptor`) does not run, so the descriptor is closed once, by `acquire`. Closing it twice would
        // close whatever file another thread opened under the same number in between.
        descriptor = try MigrationLock.acquire(path, for: databasePath, timeout: timeout)
        let stamp = "pid \(getpid()), since \(Timestamp.format(Date()))\n"
        _ = ftruncate(descriptor, 0)
        _ = stamp.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    /// Opens the lock file and locks it, polling until `timeout`; returns the locked descriptor.
    /// On failure the descriptor is closed before throwing.
    private static func acquire(_ path: String, for databasePath: String, timeout: Duration) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(.cannotOpen, "cannot open migration lock \(path): \(String(cString: strerror(errno)))")
        }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                let holder = MigrationLock.holder(at: path)
                throw StoreError(
                    .busy, "another process is migrating \(databasePath)\(holder.map { " (\($0))" } ?? "")")
            }
            usleep(20_000)
        }
        return descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func holder(at path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
