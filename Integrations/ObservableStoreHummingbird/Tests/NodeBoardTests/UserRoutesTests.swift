import Foundation
import Hummingbird
import NodeBoard
import ObservableStore
import Testing

@Suite(.timeLimit(.minutes(10)))
struct UserRoutesTests {
    @Test func putCreatesThenGetReturnsTheUser() async throws {
        try await BoardFixture.with { board in
            let put = try await board.send(.put, "/api/users/me", json: #"{"name":"Ada"}"#)
            #expect(put.status == .ok)
            #expect(put.text.hasPrefix(#"{"id":"me","name":"Ada","hair_color":null,"created_at":""#))
            let get = try await board.send(.get, "/api/users/me")
            #expect(get.status == .ok)
            #expect(get.text == put.text)
            #expect(try board.store.commits(after: 0).last?.origin == "node-board")
        }
    }

    @Test func putUpdatesTheNameAndKeepsAnUnsentHairColor() async throws {
        try await BoardFixture.with { board in
            _ = try await board.send(.put, "/api/users/me", json: #"{"name":"Ada","hair_color":"brown"}"#)
            let created = try #require(try board.userRows().first)
            let renamed = try await board.send(.put, "/api/users/me", json: #"{"name":"Grace"}"#).json()
            #expect(renamed["name"] == .string("Grace"))
            #expect(renamed["hair_color"] == .string("brown"))
            let row = try #require(try board.userRows().first)
            #expect(row["created_at"] == created["created_at"])
            let cleared = try await board.send(.put, "/api/users/me", json: #"{"name":"Grace","hair_color":null}"#)
            #expect(try cleared.json()["hair_color"] == .null)
            #expect(try board.userRows().count == 1)
        }
    }

    @Test func errors() async throws {
        try await BoardFixture.with { board in
            try board.expectError(try await board.send(.get, "/api/users/nobody"), .notFound, "not_found")
            _ = try await board.send(.put, "/api/users/me", json: #"{"name":"Ada"}"#)
            let before = try board.snapshot()
            let missing = try await board.send(.put, "/api/users/me", json: #"{"hair_color":"red"}"#)
            try board.expectError(missing, .badRequest, "missing_field", field: "name", unchangedFrom: before)
            let wrongType = try await board.send(.put, "/api/users/me", json: #"{"name":"A","hair_color":3}"#)
            try board.expectError(wrongType, .badRequest, "wrong_type", field: "hair_color", unchangedFrom: before)
            let unknown = try await board.send(.put, "/api/users/me", json: #"{"name":"A","id":"you"}"#)
            try board.expectError(unknown, .badRequest, "unknown_field", field: "id", unchangedFrom: before)
            let malformed = try await board.send(.put, "/api/users/me", json: #"{"name":"#)
            try board.expectError(malformed, .badRequest, "malformed_json", unchangedFrom: before)
            let plain = try await board.send(.put, "/api/users/me", json: #"{"name":"A"}"#, contentType: "text/plain")
            try board.expectError(plain, .unsupportedMediaType, "unsupported_media_type", unchangedFrom: before)
        }
    }
}
