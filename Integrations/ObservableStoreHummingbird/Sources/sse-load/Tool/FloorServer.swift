import ArgumentParser
import Foundation
import Hummingbird

/// `sse-load floor --port P --json FILE [--node FILE]`: the HTTP floor. Serves the same bytes node-board would
/// (`GET /api/nodes`, `GET|PATCH /api/nodes/:id`) from memory, through the same Hummingbird stack, so that wrk's
/// requests/s against it is what the HTTP layer alone allows.
struct FloorServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor", abstract: "Serve fixed JSON from memory through Hummingbird (the HTTP floor).")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8081

    @Option(help: "The file served for GET /api/nodes (e.g. node-board's own answer, saved with curl).")
    var json: String

    @Option(help: "The file served for GET and PATCH /api/nodes/:id (default: {}).")
    var node: String?

    func run() async throws {
        let list = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: json)))
        let one = ByteBuffer(bytes: try node.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? Data("{}".utf8))
        let router = Router()
        router.get("api/nodes") { _, _ in Self.json(list) }
        router.get("api/nodes/:id") { _, _ in Self.json(one) }
        router.patch("api/nodes/:id") { request, _ in
            _ = try await request.body.collect(upTo: 1 << 20)
            return Self.json(one)
        }
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port)))
        try await app.runService()
    }

    private static func json(_ bytes: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: bytes))
    }
}
