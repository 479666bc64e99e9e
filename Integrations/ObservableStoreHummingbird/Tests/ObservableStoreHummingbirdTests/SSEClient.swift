import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A Server-Sent Events client on a plain loopback socket, for tests: a thread of its own reads the response
/// (HTTP/1.1, chunked), and the test takes parsed frames with a timeout. It can also connect without reading, to
/// play a client that stalls.
final class SSEClient: @unchecked Sendable {  // @unchecked: the buffers are guarded by `lock`
    /// One frame: its fields, or the comment of a heartbeat.
    struct Frame: Equatable, CustomStringConvertible {
        var id: Int64?
        var event: String?
        var data: String?
        var comment: String?
        /// The `retry:` field: the reconnect delay in milliseconds.
        var retry: Int?

        var description: String { "id=\(id.map(String.init) ?? "-") event=\(event ?? "-") data=\(data ?? comment ?? "")" }

        /// The `data:` JSON object.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data((data ?? "{}").utf8))) as? [String: Any] ?? [:] }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let socket: Int32
    private let lock = NSLock()
    private var raw: [UInt8] = []
    private var body: [UInt8] = []
    private var status: Int?
    private var headText = ""
    private var ended = false
    private var readerStarted = false

    /// Connects to `127.0.0.1:port` and sends `GET path` with `headers`; with `reading` false, nothing is read until
    /// ``startReading()``. `receiveBuffer` shrinks the socket's receive buffer (a client that stalls).
    init(port: Int, path: String = "/events", headers: [String: String] = [:], reading: Bool = true, receiveBuffer: Int32? = nil) throws {
        var request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        socket = try Self.openSocket(port: port, receiveBuffer: receiveBuffer, request: request + "\r\n")
        if reading { startReading() }
    }

    deinit { Glibc.close(socket) }

    /// A socket connected to `127.0.0.1:port` (with a receive buffer of `receiveBuffer` bytes, if given) that has
    /// sent `request`.
    static func openSocket(port: Int, receiveBuffer: Int32? = nil, request: String) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw Failure(description: "connect: \(errno)")
        }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return socket
    }

    /// Starts the reading thread (once).
    func startReading() {
        let start = lock.withLock { () -> Bool in
            defer { readerStarted = true }
            return !readerStarted
        }
        guard start else { return }
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                lock.withLock {
                    if count > 0 { raw += chunk[0..<count] } else { ended = true }
                    decode()
                }
                if count <= 0 { return }
            }
        }
        thread.start()
    }

    /// Closes the connection (the server sees the client go at its next write).
    func disconnect() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// The response's status code, once its head arrived.
    func responseStatus(timeout: Duration = .seconds(10)) async throws -> Int {
        try await waitFor(timeout: timeout, what: "the response head") { status }
    }

    /// The response's head (status line and headers), lowercased, once it arrived.
    func head(timeout: Duration = .seconds(10)) async throws -> String {
        try await waitFor(timeout: timeout, what: "the response head") { status == nil ? nil : headText }
    }

    /// The next frame (heartbeats, and the stream's first frame, which only sets the reconnect delay, included
    /// only with `heartbeats`), within `timeout`.
    func next(timeout: Duration = .seconds(10), heartbeats: Bool = false) async throws -> Frame {
        try await waitFor(timeout: timeout, what: "a frame") { () -> Frame? in
            while let frame = takeFrame() {
                if (frame.comment == nil && frame.retry == nil) || heartbeats { return frame }
            }
            return nil
        }
    }

    /// The next `count` frames that are not heartbeats.
    func next(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [Frame] {
        var frames: [Frame] = []
        let deadline = ContinuousClock.now + timeout
        while frames.count < count { frames.append(try await next(timeout: deadline - ContinuousClock.now)) }
        return frames
    }

    /// Waits until the server ends the response (true), or `timeout` passes (false).
    func waitForEnd(timeout: Duration = .seconds(10)) async -> Bool {
        (try? await waitFor(timeout: timeout, what: "the end") { ended ? true : nil }) ?? false
    }

    private func waitFor<T>(timeout: Duration, what: String, _ check: () -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = lock.withLock(check) { return value }
            if lock.withLock({ ended && takeFrameText() == nil }) && what != "the end" {
                throw Failure(description: "the stream ended while waiting for \(what)")
            }
            guard ContinuousClock.now < deadline else { throw Failure(description: "timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Moves the complete chunks of `raw` into `body` (called with the lock held).
    private func decode() {
        if status == nil {
            guard let end = find([13, 10, 13, 10], in: raw, from: 0) else { return }
            let head = String(decoding: raw[0..<end], as: UTF8.self)
            headText = head.lowercased()
            status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
            raw.removeFirst(end + 4)
        }
        var start = 0
        while let lineEnd = find([13, 10], in: raw, from: start) {
            let size = Int(String(decoding: raw[start..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
            guard raw.count >= lineEnd + 2 + size + 2 else { break }
            body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            start = lineEnd + 2 + size + 2
            if size == 0 { ended = true }
        }
        raw.removeFirst(start)
    }

    /// Where the frames not yet taken start in `body`.
    private var bodyStart = 0

    /// The text of the next complete frame, without taking it (called with the lock held).
    private func takeFrameText() -> String? {
        find([10, 10], in: body, from: bodyStart).map { String(decoding: body[bodyStart..<$0], as: UTF8.self) }
    }

    /// Takes the next complete frame out of `body` (called with the lock held).
    private func takeFrame() -> Frame? {
        guard let end = find([10, 10], in: body, from: bodyStart) else { return nil }
        let text = String(decoding: body[bodyStart..<end], as: UTF8.self)
        bodyStart = end + 2
        if bodyStart > 1 << 20 {
            body.removeFirst(bodyStart)
            bodyStart = 0
        }
        var frame = Frame()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                frame.comment = String(line.dropFirst().drop(while: { $0 == " " }))
            } else if let colon = line.firstIndex(of: ":") {
                let value = String(line[line.index(after: colon)...].drop(while: { $0 == " " }))
                switch line[..<colon] {
                case "id": frame.id = Int64(value)
                case "event": frame.event = value
                case "data": frame.data = value
                case "retry": frame.retry = Int(value)
                default: break
                }
            }
        }
        return frame
    }

    /// The index of `needle` (two or four bytes) in `bytes` at or after `start`.
    private func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count - start >= needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] {
            var matches = true
            for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
                matches = false
                break
            }
            if matches { return index }
        }
        return nil
    }
}
