import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a loopback port that sends one HTTP request and reads the answer as it comes: enough to
/// follow a Server-Sent Events stream from a test, with a timeout on every read.
final class RawHTTPStream {
    private let socket: Int32
    private var received = ""

    /// Connects to 127.0.0.1:`port` and sends `request`.
    init(port: Int, request: String) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)  // reads wake up to check their deadline
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        guard send(socket, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// What arrived up to and including the first `marker` not read yet; throws after `timeout`.
    func read(until marker: String, timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let range = received.range(of: marker) {
                let text = String(received[..<range.upperBound])
                received.removeSubrange(..<range.upperBound)
                return text
            }
            guard ContinuousClock.now < deadline else { throw POSIXError(.ETIMEDOUT) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { received += String(decoding: buffer[..<count], as: UTF8.self) }
            if count == 0 { throw POSIXError(.ECONNRESET) }
        }
    }

    /// Closes the connection.
    func close() {
        _ = Glibc.close(socket)
    }
}
