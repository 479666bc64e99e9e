/// Decodes the bytes of an HTTP/1.1 response carrying Server-Sent Events, fed as they arrive: the status line
/// and headers first, then the body (chunked, with a length, or up to the end of the connection) cut into
/// ``SSEFrame``s.
///
/// For example:
///
/// ```swift
/// var decoder = SSEStreamDecoder()
/// let frames = try decoder.feed(bytesJustRead, at: now)
/// ```
public struct SSEStreamDecoder: Sendable {
    /// The response's status code, once the head is read.
    public private(set) var status: Int?
    /// The response's headers (names in lower case), once the head is read.
    public private(set) var headers: [String: String] = [:]
    /// Whether the body has ended (the last chunk, or all of `Content-Length`).
    public private(set) var bodyEnded = false

    private enum Body: Sendable {
        case head
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case length(remaining: Int)
        case untilClose
        case ended
    }

    private var state = Body.head
    private var pending: [UInt8] = []
    private var line: [UInt8] = []
    private var frame = SSEFrame()
    private var frameHasContent = false
    private var dataLines: [String] = []

    /// A decoder at the start of a response.
    public init() {}

    /// The decoding failed: the bytes are not an HTTP response this decoder understands.
    public struct Malformed: Error, CustomStringConvertible {
        /// What was wrong.
        public var description: String
    }

    /// Feeds `bytes` read at `time` (nanoseconds since 1970, stamped on the frames they complete); returns the
    /// frames they complete, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>, at time: UInt64 = 0) throws -> [SSEFrame] {
        var frames: [SSEFrame] = []
        var input = ArraySlice(bytes)
        while !input.isEmpty {
            switch state {
            case .head:
                try readHead(&input)
            case .chunkSize:
                let byte = input.removeFirst()
                if byte == 0x0A {
                    let digits = String(decoding: pending.prefix { $0 != 0x3B && $0 != 0x0D && $0 != 0x20 }, as: UTF8.self)
                    guard let size = Int(digits, radix: 16) else { throw Malformed(description: "bad chunk size \(digits)") }
                    pending.removeAll(keepingCapacity: true)
                    state = size == 0 ? .ended : .chunkData(remaining: size)
                    bodyEnded = size == 0
                } else {
                    pending.append(byte)
                }
            case .chunkData(let remaining):
                let taken = input.prefix(remaining)
                input = input.dropFirst(taken.count)
                acceptBody(taken, at: time, into: &frames)
                state = taken.count == remaining ? .chunkEnd : .chunkData(remaining: remaining - taken.count)
            case .chunkEnd:
                if input.removeFirst() == 0x0A { state = .chunkSize }
            case .length(let remaining):
                let taken = input.prefix(remaining)
                input = input.dropFirst(taken.count)
                acceptBody(taken, at: time, into: &frames)
                state = taken.count == remaining ? .ended : .length(remaining: remaining - taken.count)
                bodyEnded = taken.count == remaining
            case .untilClose:
                acceptBody(input, at: time, into: &frames)
                input = []
            case .ended:
                input = []
            }
        }
        return frames
    }

    /// Collects the head up to its blank line, then parses it and chooses how the body is framed.
    private mutating func readHead(_ input: inout ArraySlice<UInt8>) throws {
        while let byte = input.popFirst() {
            pending.append(byte)
            if pending.count >= 4, pending.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) { break }
        }
        guard pending.count >= 4, pending.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) else { return }
        let lines = String(decoding: pending, as: UTF8.self).split(separator: "\r\n")
        pending.removeAll(keepingCapacity: true)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let code = Int(statusParts[1]) else {
            throw Malformed(description: "bad status line \(lines.first ?? "")")
        }
        status = code
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            state = .chunkSize
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            state = length == 0 ? .ended : .length(remaining: length)
            bodyEnded = length == 0
        } else {
            state = .untilClose
        }
    }

    /// Cuts body bytes into lines and lines into frames.
    private mutating func acceptBody(_ bytes: ArraySlice<UInt8>, at time: UInt64, into frames: inout [SSEFrame]) {
        for byte in bytes {
            guard byte == 0x0A else {
                line.append(byte)
                continue
            }
            if line.last == 0x0D { line.removeLast() }
            acceptLine(at: time, into: &frames)
            line.removeAll(keepingCapacity: true)
        }
    }

    /// One line of the event stream: a field, a comment, or the blank line that ends a frame.
    private mutating func acceptLine(at time: UInt64, into frames: inout [SSEFrame]) {
        if line.isEmpty {
            guard frameHasContent else { return }
            frame.data = dataLines.joined(separator: "\n")
            frame.receivedAt = time
            frames.append(frame)
            frame = SSEFrame()
            dataLines.removeAll(keepingCapacity: true)
            frameHasContent = false
            return
        }
        frameHasContent = true
        let colon = line.firstIndex(of: 0x3A) ?? line.endIndex
        var value = line[min(colon + 1, line.endIndex)...]
        if value.first == 0x20 { value = value.dropFirst() }
        let text = String(decoding: value, as: UTF8.self)
        switch String(decoding: line[..<colon], as: UTF8.self) {
        case "": frame.comments.append(text)
        case "id": frame.id = text
        case "event": frame.event = text
        case "data": dataLines.append(text)
        case "retry": frame.retry = Int(text)
        default: break
        }
    }
}
