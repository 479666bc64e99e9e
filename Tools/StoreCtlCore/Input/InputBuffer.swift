import Foundation
import ObservableStore

/// Input bytes read in blocks from a file descriptor (or held in memory for an argument), so that the record
/// readers look at one record at a time and memory does not grow with the input.
///
/// `bytes[position...]` is what has been read and not consumed yet. ``readMore()`` drops the consumed bytes
/// (indexes into `bytes` change then: readers keep stream offsets, ``offset(of:)``, across it) and appends
/// one more block.
final class InputBuffer {
    /// How much one `read(2)` asks for.
    static let blockSize = 256 * 1024

    /// The bytes read and not yet dropped.
    private(set) var bytes: [UInt8] = []
    /// The index in `bytes` of the first byte not consumed yet.
    var position = 0
    /// True once the input has no more bytes to read.
    private(set) var isAtEnd = false
    /// The input's size when known in advance (a regular file), for progress.
    let totalBytes: Int?
    /// The stream offset of `bytes[0]`: how many bytes were dropped.
    private(set) var dropped = 0
    private let descriptor: Int32?
    private let closesDescriptor: Bool
    private var block: [UInt8]

    /// Reads from `descriptor`, closing it when done if `closesDescriptor`.
    init(descriptor: Int32, closesDescriptor: Bool) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
        var status = stat()
        let isRegularFile = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        totalBytes = isRegularFile ? Int(status.st_size) : nil
        block = [UInt8](repeating: 0, count: Self.blockSize)
    }

    /// Holds `data`, the whole input.
    init(data: Data) {
        descriptor = nil
        closesDescriptor = false
        bytes = Array(data)
        totalBytes = bytes.count
        isAtEnd = true
        block = []
    }

    deinit {
        if closesDescriptor, let descriptor { close(descriptor) }
    }

    /// How many bytes have been read from the input so far.
    var bytesRead: Int { dropped + bytes.count }

    /// The stream offset of `bytes[index]`.
    func offset(of index: Int) -> Int { dropped + index }

    /// Drops the consumed bytes and appends the next block; false (and ``isAtEnd``) at the end of the input.
    func readMore() throws -> Bool {
        guard !isAtEnd, let descriptor else {
            isAtEnd = true
            return false
        }
        if position > 0 {
            bytes.removeSubrange(0..<position)
            dropped += position
            position = 0
        }
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: block[0..<count])
                return true
            }
            if count == 0 {
                isAtEnd = true
                return false
            }
            guard errno == EINTR else {
                throw StoreError(.internal, "cannot read the input: \(String(cString: strerror(errno)))")
            }
        }
    }
}
