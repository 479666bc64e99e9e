import Foundation
import Hummingbird
import ObservableStore

/// The REST API of the board's nodes (table `nodes`): list a page, get, create, patch, delete. Every write is
/// one transaction with origin "node-board"; a failed one writes nothing.
struct NodeRoutes: Sendable {
    /// The fields `POST /api/nodes` takes.
    static let creatableFields = ["id", "name", "x", "y", "color", "width", "height"]
    /// The fields `PATCH /api/nodes/:id` takes.
    static let patchableFields = ["name", "x", "y", "color", "width", "height"]

    let store: any RecordStore
    /// The encoded pages of `GET /api/nodes`, served while nothing was committed since they were read.
    let pages = NodePageCache()

    /// Adds the routes under `/api/nodes`.
    func add(to router: Router<some RequestContext>) {
        let nodes = router.group("api/nodes")
        nodes.get { request, _ in try await list(request) }
        nodes.get(":id") { _, context in try await get(RequestParameters.integerKey("id", in: context)) }
        nodes.post { request, _ in try await create(request) }
        nodes.patch(":id") { request, context in
            try await patch(RequestParameters.integerKey("id", in: context), request)
        }
        nodes.delete(":id") { _, context in try await delete(RequestParameters.integerKey("id", in: context)) }
    }

    /// `GET /api/nodes?after=ID&limit=N`: a page of nodes by id, the last commit sequence of the same snapshot,
    /// and the `after` of the next page (null at the end).
    func list(_ request: Request) async throws -> Response {
        let after = try RequestParameters.integer("after", in: request, range: Int64.min...Int64.max, default: nil)
        let limit = try RequestParameters.integer("limit", in: request, range: 1...1000, default: 100) ?? 100
        let key = NodePageCache.Key(after: after, limit: limit)
        // One cheap read: the page is served from the cache only if nothing was committed since it was read.
        let current = try await store.boardRead { tx in try tx.lastSequence() }
        if let body = pages.body(for: key, at: current) { return .json(buffer: body) }
        let (rows, sequence) = try await store.boardRead { tx in
            // Without `after`, from the first id (ids given by clients may be negative).
            let rows = try after.map { after in
                try tx.fetchRows("SELECT * FROM nodes WHERE id > ? ORDER BY id LIMIT ?", [after, limit + 1])
            } ?? tx.fetchRows("SELECT * FROM nodes ORDER BY id LIMIT ?", [limit + 1])
            return (rows, try tx.lastSequence())
        }
        let body = ByteBuffer(bytes: NodeRoutes.page(rows, limit: limit, sequence: sequence))
        pages.store(body, for: key, at: sequence)
        return .json(buffer: body)
    }

    /// The JSON of a page: the first `limit` of `rows` (which holds one more when there is a next page), built as
    /// UTF-8 in one buffer (a node is about 200 bytes).
    static func page(_ rows: [Row], limit: Int64, sequence: Int64) -> [UInt8] {
        let page = rows.prefix(Int(limit))
        var body: [UInt8] = []
        body.reserveCapacity(64 + 256 * page.count)
        body.append(contentsOf: "{\"nodes\":[".utf8)
        for (index, row) in page.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONText.appendObject(row.columns, row.values, to: &body)
        }
        body.append(contentsOf: "],\"seq\":\(sequence),\"next\":".utf8)
        JSONText.appendValue(rows.count > limit ? page.last?["id"] ?? .null : .null, to: &body)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// `GET /api/nodes/:id`.
    func get(_ id: Int64) async throws -> Response {
        let row = try await store.boardRead { tx in try NodeRoutes.row(id, in: tx) }
        guard let row else { throw APIError.notFound(table: "nodes", key: String(id)) }
        return .json(row)
    }

    /// `POST /api/nodes`: 201 with the stored node and its `Location`.
    func create(_ request: Request) async throws -> Response {
        let body = try await JSONBody(request, allowed: NodeRoutes.creatableFields)
        let node = NodeVO(
            id: try body.optionalInteger("id"), name: try body.string("name"), x: try body.number("x"),
            y: try body.number("y"), color: try body.optionalString("color") ?? NodeVO.defaultColor,
            width: try body.optionalNumber("width") ?? 120, height: try body.optionalNumber("height") ?? 60)
        let row = try await store.boardWrite { tx in
            let stored = try tx.insert(node)
            return try NodeRoutes.row(stored.id ?? 0, in: tx)
        }
        guard let row, let id = row["id"] else { throw APIError.notFound(table: "nodes", key: "new") }  // never
        return .json(row, status: .created, headers: [.location: "/api/nodes/\(JSONText.value(id))"])
    }

    /// `PATCH /api/nodes/:id`: writes only the given fields, and `updated_at`.
    func patch(_ id: Int64, _ request: Request) async throws -> Response {
        let body = try await JSONBody(request, allowed: NodeRoutes.patchableFields)
        let name = try body.optionalString("name")
        let x = try body.optionalNumber("x")
        let y = try body.optionalNumber("y")
        let color = try body.optionalString("color")
        let width = try body.optionalNumber("width")
        let height = try body.optionalNumber("height")
        let columns = NodeRoutes.patchableFields.filter(body.contains)
        guard !columns.isEmpty else { return try await get(id) }
        let row = try await store.boardWrite { tx in
            guard var node = try tx.fetch(NodeVO.self, key: id) else {
                throw APIError.notFound(table: "nodes", key: String(id))
            }
            if let name { node.name = name }
            if let x { node.x = x }
            if let y { node.y = y }
            if let color { node.color = color }
            if let width { node.width = width }
            if let height { node.height = height }
            node.updatedAt = Date()
            try tx.update(node, columns: columns + ["updated_at"])
            return try NodeRoutes.row(id, in: tx)
        }
        guard let row else { throw APIError.notFound(table: "nodes", key: String(id)) }  // never: written just now
        return .json(row)
    }

    /// `DELETE /api/nodes/:id`: 204.
    func delete(_ id: Int64) async throws -> Response {
        let deleted = try await store.boardWrite { tx in try tx.delete(NodeVO.self, key: id) }
        guard deleted else { throw APIError.notFound(table: "nodes", key: String(id)) }
        return Response(status: .noContent)
    }

    /// The row of node `id`, every column.
    static func row(_ id: Int64, in tx: any StoreTransaction) throws -> Row? {
        try tx.fetchRows("SELECT * FROM nodes WHERE id = ?", [id]).first
    }
}
