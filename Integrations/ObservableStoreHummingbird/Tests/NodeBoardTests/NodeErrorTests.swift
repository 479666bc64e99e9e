import Foundation
import Hummingbird
import NodeBoard
import ObservableStore
import Testing

/// Every error of the contract on the node routes, each leaving the store as it was.
@Suite(.timeLimit(.minutes(10)))
struct NodeErrorTests {
    @Test(arguments: [
        (#"{"name":"a","x":1,"#, "malformed_json", nil),
        (#"[1,2]"#, "malformed_json", nil),
        ("", "malformed_json", nil),
        (#"{"name":"a","x":"1","y":2}"#, "wrong_type", "x"),
        (#"{"name":5,"x":1,"y":2}"#, "wrong_type", "name"),
        (#"{"name":"a","x":1,"y":true}"#, "wrong_type", "y"),
        (#"{"name":"a","x":1,"y":2,"width":null}"#, "wrong_type", "width"),
        (#"{"name":"a","x":1,"y":2,"id":1.5}"#, "wrong_type", "id"),
        (#"{"name":"a","x":1}"#, "missing_field", "y"),
        (#"{"x":1,"y":2}"#, "missing_field", "name"),
        (#"{"name":"a","x":1,"y":2,"z":3}"#, "unknown_field", "z"),
        (#"{"name":"a","x":1,"y":2,"created_at":"2026-01-01T00:00:00.000Z"}"#, "unknown_field", "created_at"),
    ] as [(String, String, String?)])
    func createRejectsABadBody(body: String, code: String, field: String?) async throws {
        try await BoardFixture.with { board in
            try board.insertNode()
            let before = try board.snapshot()
            let response = try await board.send(.post, "/api/nodes", json: body)
            try board.expectError(response, .badRequest, code, field: field, unchangedFrom: before)
        }
    }

    @Test func constraintIs409() async throws {
        try await BoardFixture.with { board in
            let id = try board.insertNode()
            let before = try board.snapshot()
            let negative = try await board.send(.post, "/api/nodes", json: #"{"name":"a","x":1,"y":2,"width":-1}"#)
            try board.expectError(negative, .conflict, "constraint", unchangedFrom: before)
            let duplicate = try await board.send(.post, "/api/nodes", json: #"{"id":\#(id),"name":"a","x":1,"y":2}"#)
            try board.expectError(duplicate, .conflict, "constraint", unchangedFrom: before)
            let patch = try await board.send(.patch, "/api/nodes/\(id)", json: #"{"x":9,"height":-5}"#)
            try board.expectError(patch, .conflict, "constraint", unchangedFrom: before)
        }
    }

    @Test func wrongContentTypeIs415() async throws {
        try await BoardFixture.with { board in
            let before = try board.snapshot()
            let body = #"{"name":"a","x":1,"y":2}"#
            let plain = try await board.send(.post, "/api/nodes", json: body, contentType: "text/plain")
            try board.expectError(plain, .unsupportedMediaType, "unsupported_media_type", unchangedFrom: before)
            let none = try await board.send(.post, "/api/nodes", json: body, contentType: nil)
            try board.expectError(none, .unsupportedMediaType, "unsupported_media_type", unchangedFrom: before)
            let withCharset = try await board.send(
                .post, "/api/nodes", json: body, contentType: "application/json; charset=utf-8")
            #expect(withCharset.status == .created)
        }
    }

    @Test func bodyOverOneMebibyteIs413() async throws {
        try await BoardFixture.with { board in
            let before = try board.snapshot()
            let name = String(repeating: "n", count: JSONBody.maximumSize)
            let response = try await board.send(.post, "/api/nodes", json: #"{"name":"\#(name)","x":1,"y":2}"#)
            try board.expectError(response, .contentTooLarge, "too_large", unchangedFrom: before)
        }
    }

    @Test func missingNodeIs404() async throws {
        try await BoardFixture.with { board in
            let before = try board.snapshot()
            try board.expectError(try await board.send(.get, "/api/nodes/7"), .notFound, "not_found")
            let patch = try await board.send(.patch, "/api/nodes/7", json: #"{"x":1}"#)
            try board.expectError(patch, .notFound, "not_found", unchangedFrom: before)
            let delete = try await board.send(.delete, "/api/nodes/7")
            try board.expectError(delete, .notFound, "not_found", unchangedFrom: before)
        }
    }

    @Test func patchRejectsABadBody() async throws {
        try await BoardFixture.with { board in
            let id = try board.insertNode()
            let before = try board.snapshot()
            let wrongType = try await board.send(.patch, "/api/nodes/\(id)", json: #"{"x":1,"name":null}"#)
            try board.expectError(wrongType, .badRequest, "wrong_type", field: "name", unchangedFrom: before)
            let unknown = try await board.send(.patch, "/api/nodes/\(id)", json: #"{"id":3}"#)
            try board.expectError(unknown, .badRequest, "unknown_field", field: "id", unchangedFrom: before)
            let malformed = try await board.send(.patch, "/api/nodes/\(id)", json: "{x:1}")
            try board.expectError(malformed, .badRequest, "malformed_json", unchangedFrom: before)
            let plain = try await board.send(.patch, "/api/nodes/\(id)", json: #"{"x":1}"#, contentType: "text/plain")
            try board.expectError(plain, .unsupportedMediaType, "unsupported_media_type", unchangedFrom: before)
        }
    }

    @Test(arguments: [
        ("/api/nodes?limit=0", "limit"), ("/api/nodes?limit=1001", "limit"), ("/api/nodes?limit=ten", "limit"),
        ("/api/nodes?after=x", "after"), ("/api/nodes?limit=1&limit=2", "limit"), ("/api/nodes/abc", "id"),
    ])
    func badParameterIs400(uri: String, parameter: String) async throws {
        try await BoardFixture.with { board in
            try board.expectError(try await board.send(.get, uri), .badRequest, "bad_parameter", field: parameter)
        }
    }
}
