import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import NIOCore
import NodeBoard
import ObservableStore
import ObservableStoreHummingbird
import Testing

/// A response of the board, its body parsed when it is JSON.
struct BoardResponse {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String

    /// The body as JSON (fails the test when it is not).
    func json() throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The `error` object's code and field, for an error response.
    func error() throws -> (code: String?, field: String?) {
        let error = try json()["error"]
        return (error?["code"]?.string, error?["field"]?.string)
    }
}

/// The board's router on a new store: a file in a temporary directory, removed afterwards, or a PostgreSQL database of
/// the test server.
struct BoardFixture<S: RecordStore>: Sendable {
    let client: any TestClientProtocol
    let store: S

    /// Runs `body` with the board's router on `store` (closed afterwards); `token`, when given, guards the writes.
    static func with(store: S, token: String?, _ body: @Sendable (BoardFixture) async throws -> Void) async throws {
        let service = StoreService(store: store)
        defer { store.close() }
        var logger = Logger(label: "node-board-tests")
        logger.logLevel = .error  // the API's errors are logged at warning, and the tests make many
        let router = try NodeBoardApplication.router(service: service, token: token, metrics: PrometheusCollectorRegistry())
        let app = Application(router: router, logger: logger)
        try await app.test(.router) { client in
            try await body(BoardFixture(client: client, store: store))
        }
    }

    /// Sends a request; `json` is sent as `application/json` unless `contentType` says otherwise.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, contentType: String? = "application/json",
        token: String? = nil
    ) async throws -> BoardResponse {
        var headers: HTTPFields = [:]
        if json != nil, let contentType { headers[.contentType] = contentType }
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.execute(
            uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
        return BoardResponse(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }

    /// Every node of the store, as rows.
    func nodeRows() throws -> [Row] {
        try store.read { tx in try tx.fetchRows("SELECT * FROM nodes ORDER BY id", []) }
    }

    /// Every user of the store, as rows.
    func userRows() throws -> [Row] {
        try store.read { tx in try tx.fetchRows("SELECT * FROM user_info ORDER BY id", []) }
    }

    /// Inserts a node directly (not through the API) and returns its id.
    @discardableResult
    func insertNode(name: String = "a", x: Double = 1, y: Double = 2) throws -> Int64 {
        try store.write(origin: nil) { tx in try tx.insert(NodeVO(name: name, x: x, y: y)).id ?? 0 }
    }

    /// Expects `response` to be the JSON error `code` with `status`, naming `field`, and the store to be as `before`.
    func expectError(
        _ response: BoardResponse, _ status: HTTPResponse.Status, _ code: String, field: String? = nil,
        unchangedFrom before: (nodes: [Row], users: [Row], sequence: Int64)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.headers[.contentType] == "application/json", sourceLocation: sourceLocation)
        let error = try response.error()
        #expect(error.code == code, sourceLocation: sourceLocation)
        #expect(error.field == field, sourceLocation: sourceLocation)
        if let before {
            #expect(try nodeRows() == before.nodes, sourceLocation: sourceLocation)
            #expect(try userRows() == before.users, sourceLocation: sourceLocation)
            #expect(try store.lastSequence() == before.sequence, sourceLocation: sourceLocation)
        }
    }

    /// The store's nodes, users and last sequence, to check later that nothing was written.
    func snapshot() throws -> (nodes: [Row], users: [Row], sequence: Int64) {
        (try nodeRows(), try userRows(), try store.lastSequence())
    }
}

/// The board on a SQLite store.
extension BoardFixture where S == SQLiteStore {
    /// Runs `body` with the router of a fresh store file; `token`, when given, guards the writes.
    static func with(token: String? = nil, _ body: @Sendable (BoardFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-board-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await with(store: try SQLiteStore(path: directory.appendingPathComponent("board.sqlite").path), token: token, body)
    }
}

extension JSONValue {
    /// Member `key` of an object.
    subscript(_ key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, if this is one.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The integer, if this is one.
    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    var elements: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }
}
