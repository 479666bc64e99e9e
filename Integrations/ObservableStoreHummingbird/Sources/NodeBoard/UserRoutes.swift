import Foundation
import Hummingbird
import ObservableStore

/// The REST API of the board's users (table `user_info`): get one, and put one (created when missing).
struct UserRoutes: Sendable {
    /// The fields `PUT /api/users/:id` takes.
    static let puttableFields = ["name", "hair_color"]

    let store: any RecordStore

    /// Adds the routes under `/api/users`.
    func add(to router: Router<some RequestContext>) {
        let users = router.group("api/users")
        users.get(":id") { _, context in try await get(try UserRoutes.key(context)) }
        users.put(":id") { request, context in try await put(try UserRoutes.key(context), request) }
    }

    /// `GET /api/users/:id`.
    func get(_ id: String) async throws -> Response {
        let row = try await store.boardRead { tx in try UserRoutes.row(id, in: tx) }
        guard let row else { throw APIError.notFound(table: "user_info", key: id) }
        return .json(row)
    }

    /// `PUT /api/users/:id`: sets the name (required) and, when given, the hair colour (`null` clears it; absent
    /// keeps the stored one). Creates the user when missing.
    func put(_ id: String, _ request: Request) async throws -> Response {
        let body = try await JSONBody(request, allowed: UserRoutes.puttableFields)
        let name = try body.string("name")
        let hairColor = try body.nullableString("hair_color")
        let row = try await store.boardWrite { tx in
            if var user = try tx.fetch(UserInfo.self, key: id) {
                user.name = name
                if let hairColor { user.hairColor = hairColor }
                user.updatedAt = Date()
                try tx.update(user, columns: ["name", "updated_at"] + (hairColor == nil ? [] : ["hair_color"]))
            } else {
                try tx.insert(UserInfo(id: id, name: name, hairColor: hairColor ?? nil))
            }
            return try UserRoutes.row(id, in: tx)
        }
        guard let row else { throw APIError.notFound(table: "user_info", key: id) }  // never: written just now
        return .json(row)
    }

    /// The path's user id.
    static func key(_ context: some RequestContext) throws -> String {
        guard let id = context.parameters.get("id"), !id.isEmpty else {
            throw APIError.badParameter("id", "must not be empty")
        }
        return id
    }

    /// The row of user `id`, every column.
    static func row(_ id: String, in tx: any StoreTransaction) throws -> Row? {
        try tx.fetchRows("SELECT * FROM user_info WHERE id = ?", [id]).first
    }
}
