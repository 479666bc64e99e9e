import Foundation
import Hummingbird
import NodeBoard
import ObservableStore
import Testing

@Suite(.timeLimit(.minutes(10)))
struct NodeRoutesTests {
    @Test func createReturns201WithTheStoredNodeAndLocation() async throws {
        try await BoardFixture.with { board in try await NodeBoardCases.createReturns201WithTheStoredNodeAndLocation(board) }
    }

    @Test func createTakesOptionalFieldsAndAnId() async throws {
        try await BoardFixture.with { board in
            let body = ##"{"id":42,"name":"b","x":1,"y":2,"color":"#FF0000","width":10,"height":5}"##
            let response = try await board.send(.post, "/api/nodes", json: body)
            #expect(response.status == .created)
            #expect(response.headers[.location] == "/api/nodes/42")
            let row = try #require(try board.nodeRows().first)
            #expect(row["id"] == .integer(42))
            #expect(row["color"] == .text("#FF0000"))
            #expect(row["width"] == .real(10))
            #expect(row["height"] == .real(5))
        }
    }

    @Test func getReturnsTheNode() async throws {
        try await BoardFixture.with { board in
            let id = try board.insertNode(name: "n", x: 3, y: 4)
            let response = try await board.send(.get, "/api/nodes/\(id)")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let node = try response.json()
            #expect(node["id"]?.integer == id)
            #expect(node["name"] == .string("n"))
            #expect(response.text.contains(#""x":3.0"#))
        }
    }

    @Test func listPagesByIdWithTheSnapshotsSequence() async throws {
        try await BoardFixture.with { board in
            for index in 1...5 { try board.insertNode(name: "n\(index)") }
            let sequence = try board.store.lastSequence()
            let first = try await board.send(.get, "/api/nodes?limit=2").json()
            #expect(first["nodes"]?.elements?.compactMap { $0["id"]?.integer } == [1, 2])
            #expect(first["seq"]?.integer == sequence)
            #expect(first["next"]?.integer == 2)
            let second = try await board.send(.get, "/api/nodes?after=2&limit=2").json()
            #expect(second["nodes"]?.elements?.compactMap { $0["id"]?.integer } == [3, 4])
            let last = try await board.send(.get, "/api/nodes?after=4&limit=2").json()
            #expect(last["nodes"]?.elements?.compactMap { $0["id"]?.integer } == [5])
            #expect(last["next"] == .null)
            let all = try await board.send(.get, "/api/nodes").json()
            #expect(all["nodes"]?.elements?.count == 5)
            #expect(all["next"] == .null)
        }
    }

    @Test func aRepeatedListSeesEveryCommitAtOnceOwnOrAnotherConnections() async throws {
        // The page is cached by its query and sequence: any commit, here or in another process, makes it read again.
        try await BoardFixture.with { board in
            try board.insertNode(name: "first")
            let before = try await board.send(.get, "/api/nodes").text
            #expect(try await board.send(.get, "/api/nodes").text == before)
            let patched = try await board.send(.patch, "/api/nodes/1", json: #"{"name":"mine"}"#)
            #expect(patched.status == .ok)
            let afterOwn = try await board.send(.get, "/api/nodes").json()
            #expect(afterOwn["nodes"]?.elements?.first?["name"]?.string == "mine")
            #expect(afterOwn["seq"]?.integer == 2)
            let other = try SQLiteStore(path: board.store.path)
            defer { other.close() }
            try await other.write { tx in try tx.insert(NodeVO(name: "other", x: 0, y: 0)) }
            let afterOther = try await board.send(.get, "/api/nodes").json()
            #expect(afterOther["nodes"]?.elements?.compactMap { $0["name"]?.string } == ["mine", "other"])
            #expect(afterOther["seq"]?.integer == 3)
            // Other pages are cached apart.
            let second = try await board.send(.get, "/api/nodes?after=1").json()
            #expect(second["nodes"]?.elements?.compactMap { $0["name"]?.string } == ["other"])
        }
    }

    @Test func listStartsAtTheFirstIdEvenANegativeOne() async throws {
        try await BoardFixture.with { board in
            let created = try await board.send(.post, "/api/nodes", json: #"{"id":-5,"name":"a","x":1,"y":2}"#)
            #expect(created.status == .created)
            try board.insertNode()
            let all = try await board.send(.get, "/api/nodes").json()
            #expect(all["nodes"]?.elements?.compactMap { $0["id"]?.integer } == [-5, -4])  // SQLite gives max(id) + 1
        }
    }

    @Test func listOfAnEmptyStore() async throws {
        try await BoardFixture.with { board in
            let response = try await board.send(.get, "/api/nodes")
            #expect(response.status == .ok)
            #expect(response.text == #"{"nodes":[],"seq":0,"next":null}"#)
        }
    }

    @Test func patchWritesOnlyTheGivenFields() async throws {
        try await BoardFixture.with { board in try await NodeBoardCases.patchWritesOnlyTheGivenFields(board) }
    }

    @Test func emptyPatchReturnsTheNodeAndWritesNothing() async throws {
        try await BoardFixture.with { board in
            let id = try board.insertNode()
            let before = try board.snapshot()
            let response = try await board.send(.patch, "/api/nodes/\(id)", json: "{}")
            #expect(response.status == .ok)
            #expect(try response.json()["id"]?.integer == id)
            #expect(try board.snapshot().sequence == before.sequence)
        }
    }

    @Test func deleteReturns204() async throws {
        try await BoardFixture.with { board in try await NodeBoardCases.deleteReturns204(board) }
    }

    @Test func namesRoundTripWithEscapes() async throws {
        try await BoardFixture.with { board in
            let name = "quote \" backslash \\ newline \n tab \t control \u{1} accent é emoji 😀"
            let body = #"{"name":"# + JSONText.string(name) + #","x":1,"y":2.5}"#
            let created = try await board.send(.post, "/api/nodes", json: body)
            #expect(created.status == .created)
            #expect(try created.json()["name"] == .string(name))
            #expect(try board.nodeRows().first?["name"] == .text(name))
        }
    }

    @Test func aStoreFailureIs500Internal() async throws {
        try await BoardFixture.with { board in
            board.store.close()
            let response = try await board.send(.get, "/api/nodes")
            try board.expectError(response, .internalServerError, "internal")
        }
    }
}
