import Foundation
import SSEWire

/// A keep-alive HTTP/1.1 connection sending JSON requests one at a time (the API writer of `sse-load write`).
final class HTTPClient {
    private let descriptor: Int32
    private let host: String
    private let authorization: String

    /// Connects to `host`:`port`; writes carry `Authorization: Bearer $NODE_BOARD_TOKEN` when it is set.
    init(host: String, port: Int) throws {
        descriptor = try SSEConnection.connect(host: host, port: port)
        self.host = "\(host):\(port)"
        authorization = ProcessInfo.processInfo.environment["NODE_BOARD_TOKEN"].map { "Authorization: Bearer \($0)\r\n" } ?? ""
    }

    deinit { _ = Foundation.close(descriptor) }

    /// Sends `method path` with `json` as its body and reads the whole response; its status.
    func send(_ method: String, _ path: String, json: String) throws -> Int {
        let body = Array(json.utf8)
        let head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n\(authorization)\r\n"
        try SSEConnection.send(Array(head.utf8) + body, to: descriptor)
        var decoder = SSEStreamDecoder()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !decoder.bodyEnded {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw SSEConnection.Failure(description: "the server closed the connection") }
            _ = try decoder.feed(buffer[0..<count])
        }
        return decoder.status ?? 0
    }
}
