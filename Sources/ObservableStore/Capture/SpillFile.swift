import Foundation
import ObservableStoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A temporary file that holds bytes appended and read back by offset: where ``ChangeCapture`` keeps the sealed
/// pieces of a large transaction, so that its memory does not grow with the transaction. The file is unlinked
/// as soon as it is created: nothing is left behind, even after a crash.
///
/// Not thread-safe (used by the writer only).
final class SpillFile {
    private let descriptor: Int32
    /// The file's length: where the next append goes.
    private(set) var size = 0

    /// Creates and unlinks a file in `directory`.
    init(in directory: URL) throws {
        var template = Array(directory.appendingPathComponent(".observablestore-spill-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw SpillFile.failure("create") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        // Close-on-exec: a program started during a write must not inherit the file.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Appends `bytes` at the end; returns where they start.
    @discardableResult
    func append(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        let start = size
        var written = 0
        while written < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(start + written))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw SpillFile.failure("write") }
            written += result
        }
        size += bytes.count
        return start
    }

    /// The `count` bytes at `offset`, into `buffer` (replacing its contents).
    func read(_ count: Int, at offset: Int, into buffer: inout [UInt8]) throws {
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(count)
        var failed = false
        buffer.append(contentsOf: repeatElement(0, count: count))
        buffer.withUnsafeMutableBytes { target in
            var done = 0
            while done < count {
                let result = pread(descriptor, target.baseAddress! + done, count - done, off_t(offset + done))
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    if result == 0 { errno = EIO }  // the file ends early: no errno of its own to report
                    failed = true
                    return
                }
                done += result
            }
        }
        if failed { throw SpillFile.failure("read") }
    }

    /// Drops everything from `offset` on.
    func truncate(to offset: Int) throws {
        guard offset < size else { return }
        guard ftruncate(descriptor, off_t(offset)) == 0 else { throw SpillFile.failure("truncate") }
        size = offset
    }

    private static func failure(_ operation: String) -> StoreError {
        let code = errno
        return StoreError(
            code == ENOSPC ? .diskFull : .internal,
            "cannot \(operation) the change capture's temporary file: \(String(cString: strerror(code)))")
    }
}
