import Foundation
import Hummingbird
import NodeBoard
import ObservableStore
import Testing

@Suite(.timeLimit(.minutes(10)))
struct AuthTests {
    static let token = "s3cret-token"

    @Test func writesWithoutTheRightTokenAre401AndWriteNothing() async throws {
        try await BoardFixture.with(token: AuthTests.token) { board in
            let id = try board.insertNode()
            let before = try board.snapshot()
            let body = #"{"name":"a","x":1,"y":2}"#
            for token in [nil, "wrong", "s3cret-token2", ""] as [String?] {
                let writes = [
                    try await board.send(.post, "/api/nodes", json: body, token: token),
                    try await board.send(.patch, "/api/nodes/\(id)", json: #"{"x":5}"#, token: token),
                    try await board.send(.delete, "/api/nodes/\(id)", token: token),
                    try await board.send(.put, "/api/users/me", json: #"{"name":"Ada"}"#, token: token),
                ]
                for response in writes {
                    try board.expectError(response, .unauthorized, "unauthorized", unchangedFrom: before)
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                }
            }
        }
    }

    @Test func writesWithTheTokenAndReadsWithoutOne() async throws {
        try await BoardFixture.with(token: AuthTests.token) { board in
            let body = #"{"name":"a","x":1,"y":2}"#
            let created = try await board.send(.post, "/api/nodes", json: body, token: AuthTests.token)
            #expect(created.status == .created)
            #expect(try await board.send(.get, "/api/nodes").status == .ok)
            #expect(try await board.send(.get, "/api/nodes/1").status == .ok)
            #expect(try await board.send(.get, "/").status == .ok)
            #expect(try await board.send(.get, "/healthz").status == .ok)
            let put = try await board.send(.put, "/api/users/me", json: #"{"name":"Ada"}"#, token: AuthTests.token)
            #expect(put.status == .ok)
            #expect(try await board.send(.get, "/api/users/me").status == .ok)
            #expect(try await board.send(.delete, "/api/nodes/1", token: AuthTests.token).status == .noContent)
        }
    }

    @Test func withoutATokenWritesAreOpen() async throws {
        try await BoardFixture.with { board in
            let created = try await board.send(.post, "/api/nodes", json: #"{"name":"a","x":1,"y":2}"#)
            #expect(created.status == .created)
        }
    }
}
