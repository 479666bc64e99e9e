import Foundation
import ObservableStore

/// Bytes on their way to a file descriptor (stdout): collected in one fixed buffer and written with `write(2)`
/// when it fills and at ``flush()``, so that streaming output costs a system call per buffer, not per row.
///
/// Used by one thread at a time. Flush before anything else writes to the same descriptor.
final class OutputBuffer {
    /// The buffer's size: large enough that write(2) is rare, small enough to stay in cache.
    static let capacity = 128 * 1024

    private let descriptor: Int32
    private let storage: UnsafeMutablePointer<UInt8>
    private var count = 0
    /// The errno of the first failed write; later bytes are dropped.
    private var failure: Int32?

    init(descriptor: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
        storage = .allocate(capacity: OutputBuffer.capacity)
    }

    deinit {
        writeBuffered()
        storage.deallocate()
    }

    /// Appends one byte.
    @inline(__always)
    func append(_ byte: UInt8) {
        if count == OutputBuffer.capacity { writeBuffered() }
        storage[count] = byte
        count += 1
    }

    /// Appends `bytes`; a run longer than the buffer is written straight through.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if bytes.count > OutputBuffer.capacity - count {
            writeBuffered()
            if bytes.count >= OutputBuffer.capacity { return writeAll(base, bytes.count) }
        }
        (storage + count).initialize(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// Appends `bytes`.
    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends the UTF-8 bytes of `text`.
    func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `value` in decimal.
    func append(_ value: Int64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits and a sign
        withUnsafeMutableBytes(of: &digits) { scratch in
            var magnitude = value.magnitude
            var start = scratch.count
            repeat {
                start -= 1
                scratch[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                start -= 1
                scratch[start] = UInt8(ascii: "-")
            }
            append(UnsafeRawBufferPointer(rebasing: scratch[start...]))
        }
    }

    /// Writes the buffered bytes out; throws when a write failed, now or earlier (e.g. a full disk).
    func flush() throws(StoreError) {
        writeBuffered()
        if let failure {
            throw StoreError(.internal, "cannot write the output: \(String(cString: strerror(failure)))")
        }
    }

    private func writeBuffered() {
        guard count > 0 else { return }
        writeAll(storage, count)
        count = 0
    }

    /// Writes `count` bytes at `base`, looping over short writes and EINTR. After a failure the bytes are dropped
    /// and ``flush()`` reports it. (A closed pipe raises SIGPIPE first, whose default action ends the process
    /// quietly, STORECTL.md C.1.)
    private func writeAll(_ base: UnsafeRawPointer, _ count: Int) {
        var offset = 0
        while offset < count, failure == nil {
            let written = write(descriptor, base + offset, count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                failure = written < 0 ? errno : EIO
            }
        }
    }
}
