import SSEWire
import Testing

/// The decoder the process tests and sse-load read streams with: the same frames whichever way the bytes are cut.
@Suite(.timeLimit(.minutes(10)))
struct SSEStreamDecoderTests {
    static let body = "retry: 1000\n\nid: 7\nevent: commit\ndata: {\"seq\":7}\n\n: ping\n\nid: 8\r\nevent: resync\r\ndata: a\r\ndata: b\r\n\r\n"
    static let expected = [
        SSEFrame(retry: 1000),
        SSEFrame(id: "7", event: "commit", data: #"{"seq":7}"#),
        SSEFrame(comments: ["ping"]),
        SSEFrame(id: "8", event: "resync", data: "a\nb"),
    ]

    static func chunked(_ text: String, size: Int) -> [UInt8] {
        var bytes = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let body = Array(text.utf8)
        for start in stride(from: 0, to: body.count, by: size) {
            let chunk = body[start..<min(start + size, body.count)]
            bytes += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }

    @Test(arguments: [1, 5, 1_000])
    func chunkedStreamFedByteByByteOrAtOnce(chunkSize: Int) throws {
        let bytes = Self.chunked(Self.body, size: chunkSize)
        var whole = SSEStreamDecoder()
        #expect(try whole.feed(bytes) == Self.expected)
        #expect(whole.status == 200)
        #expect(whole.headers["content-type"] == "text/event-stream")
        #expect(whole.bodyEnded)

        var piecewise = SSEStreamDecoder()
        var frames: [SSEFrame] = []
        for byte in bytes { frames += try piecewise.feed([byte]) }
        #expect(frames == Self.expected)
        #expect(frames.map(\.isEvent) == [false, true, false, true])
        #expect(frames[2].isComment)
        #expect(frames[1].sequence == 7)
    }

    @Test func bodyWithALengthOrUntilClose() throws {
        let body = Array(Self.body.utf8)
        var withLength = SSEStreamDecoder()
        let head = "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n"
        #expect(try withLength.feed(Array(head.utf8) + body) == Self.expected)
        #expect(withLength.bodyEnded)

        var untilClose = SSEStreamDecoder()
        #expect(try untilClose.feed(Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + body) == Self.expected)
    }

    @Test func aBadStatusLineOrChunkSizeIsAnError() {
        var decoder = SSEStreamDecoder()
        #expect(throws: SSEStreamDecoder.Malformed.self) { try decoder.feed(Array("garbage\r\n\r\n".utf8)) }
        var chunked = SSEStreamDecoder()
        #expect(throws: SSEStreamDecoder.Malformed.self) {
            try chunked.feed(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8))
        }
    }
}
