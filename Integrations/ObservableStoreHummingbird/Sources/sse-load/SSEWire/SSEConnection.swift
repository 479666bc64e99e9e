#if canImport(Glibc)
import Glibc

private let systemClose = Glibc.close
private let systemConnect = Glibc.connect
#elseif canImport(Darwin)
import Darwin

private let systemClose = Darwin.close
private let systemConnect = Darwin.connect
#endif

/// A client of one event stream over a plain TCP socket: sends `GET path` and reads the frames that come.
///
/// Every read waits at most the timeout it is given, so a test that uses it fails instead of hanging.
///
/// ```swift
/// let events = try SSEConnection(port: 8080, headers: ["Last-Event-ID": "12"])
/// let frame = try events.nextFrame(timeout: 10)
/// ```
public final class SSEConnection {
    /// The connected socket (-1 once closed).
    public private(set) var descriptor: Int32
    private var decoder = SSEStreamDecoder()
    private var ready: [SSEFrame] = []

    /// A read or a connection that failed, or a wait that ran out of time.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String

        /// A failure saying `description`.
        public init(description: String) { self.description = description }
    }

    /// Connects to `host`:`port` (an IPv4 address) and sends `GET path` with `headers`.
    public init(host: String = "127.0.0.1", port: Int, path: String = "/events", headers: [String: String] = [:]) throws {
        descriptor = try Self.connect(host: host, port: port)
        try Self.send(Self.request(host: host, port: port, path: path, headers: headers), to: descriptor)
    }

    /// The bytes of `GET path` for an event stream, with `headers`.
    public static func request(host: String, port: Int, path: String, headers: [String: String]) -> [UInt8] {
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        return Array((request + "\r\n").utf8)
    }

    deinit { close() }

    /// Opens a blocking TCP connection to `host`:`port`; returns its descriptor.
    public static func connect(host: String, port: Int) throws -> Int32 {
        #if canImport(Glibc)
        let socketType = Int32(SOCK_STREAM.rawValue)
        #else
        let socketType = SOCK_STREAM
        #endif
        let socketDescriptor = socket(AF_INET, socketType, 0)
        guard socketDescriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            _ = systemClose(socketDescriptor)
            throw Failure(description: "not an IPv4 address: \(host)")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            _ = systemClose(socketDescriptor)
            throw Failure(description: "cannot connect to \(host):\(port): errno \(code)")
        }
        var noDelay: Int32 = 1
        _ = setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return socketDescriptor
    }

    /// Writes all of `bytes` to the socket `descriptor`.
    public static func send(_ bytes: [UInt8], to descriptor: Int32) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "write: errno \(errno)") }
            sent += count
        }
    }

    /// The response's status code and headers (names in lower case), waiting at most `timeout` seconds for them.
    public func head(timeout: Double) throws -> (status: Int, headers: [String: String]) {
        let deadline = Self.now() + UInt64(timeout * 1e9)
        while decoder.status == nil {
            try readMore(until: deadline, waitingFor: "the response head")
        }
        return (decoder.status ?? 0, decoder.headers)
    }

    /// The next frame, waiting at most `timeout` seconds; heartbeats are returned too.
    public func nextFrame(timeout: Double) throws -> SSEFrame {
        let deadline = Self.now() + UInt64(timeout * 1e9)
        while ready.isEmpty {
            try readMore(until: deadline, waitingFor: "a frame")
        }
        return ready.removeFirst()
    }

    /// The next event (not a heartbeat, nor the `retry:` frame), waiting at most `timeout` seconds in all.
    public func nextEvent(timeout: Double) throws -> SSEFrame {
        let deadline = Self.now() + UInt64(timeout * 1e9)
        while true {
            let frame = try nextFrame(timeout: Double(deadline.subtractingReportingOverflow(Self.now()).partialValue) / 1e9)
            if frame.isEvent { return frame }
        }
    }

    /// The frames that arrive within `seconds` (none is an answer, not an error).
    public func frames(arrivingWithin seconds: Double) throws -> [SSEFrame] {
        let deadline = Self.now() + UInt64(seconds * 1e9)
        var frames: [SSEFrame] = []
        while true {
            frames += ready
            ready.removeAll()
            do {
                try readMore(until: deadline, waitingFor: "")
            } catch let failure as Failure where failure.description.hasPrefix("timed out") {
                return frames + ready
            }
        }
    }

    /// Whether the server closed the connection (or reset it) within `timeout` seconds.
    public func closedByServer(within timeout: Double) -> Bool {
        let deadline = Self.now() + UInt64(timeout * 1e9)
        while true {
            do {
                try readMore(until: deadline, waitingFor: "the end of the stream")
            } catch let failure as Failure {
                return !failure.description.hasPrefix("timed out")
            } catch {
                return true
            }
        }
    }

    /// Closes the connection.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = systemClose(descriptor)
        descriptor = -1
    }

    /// Reads what is there, waiting until `deadline` for something; decodes it.
    private func readMore(until deadline: UInt64, waitingFor what: String) throws {
        let now = Self.now()
        guard now < deadline else { throw Failure(description: "timed out waiting for \(what)") }
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let waited = poll(&polled, 1, Int32((deadline - now) / 1_000_000) + 1)
        if waited < 0, errno == EINTR { return }
        guard waited > 0 else { throw Failure(description: "timed out waiting for \(what)") }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { throw Failure(description: count == 0 ? "the server closed the stream" : "read: errno \(errno)") }
        ready += try decoder.feed(buffer[0..<count], at: Self.now())
    }

    /// Nanoseconds since 1970 (the wall clock, comparable between processes on one machine).
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
