import Foundation
import Hummingbird
import NodeBoard
import ObservableStore
import Testing

@Suite(.timeLimit(.minutes(10)))
struct NodeRoutesTests {
    @Test func createReturns201WithTheStoredNodeAndLocation() async throws {
        try await BoardFixture.with { board in
            let response = try await board.send(.post, "/api/nodes", json: #"{"name":"a","x":10.5,"y":20}"#)
            #expect(response.status == .created)
            let node = try response.json()
            let id = try #require(node["id"]?.integer)
            #expect(response.headers[.location] == "/api/nodes/\(id)")
            #expect(node["name"] == .string("a"))
            #expect(node["x"]?.doubleValue == 10.5)
            #expect(node["y"]?.doubleValue == 20)
            #expect(node["color"] == .string(NodeVO.defaultColor))
            #expect(node["width"]?.doubleValue == 120)
            #expect(node["height"]?.doubleValue == 60)
            #expect(node["created_at"]?.string?.hasSuffix("Z") == true)
            #expect(response.text.hasPrefix(#"{"id":"#))  // the columns in table order
            let rows = try board.nodeRows()
            #expect(rows.count == 1)
            #expect(rows[0]["name"] == .text("a"))
            let commits = try board.store.commits(after: 0)
            #expect(commits.last?.origin == "node-board")
        }
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
            let other = try Store(path: board.store.path)
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
        try await BoardFixture.with { board in
            let id = try board.insertNode(name: "a", x: 1, y: 2)
            let before = try #require(try board.nodeRows().first)
            try await Task.sleep(for: .milliseconds(5))  // updated_at has millisecond precision
            let response = try await board.send(.patch, "/api/nodes/\(id)", json: #"{"x":50,"y":60.5}"#)
            #expect(response.status == .ok)
            let node = try response.json()
            #expect(node["x"]?.doubleValue == 50)
            #expect(node["y"]?.doubleValue == 60.5)
            #expect(node["name"] == .string("a"))
            let after = try #require(try board.nodeRows().first)
            #expect(after["x"] == .real(50))
            #expect(after["name"] == before["name"])
            #expect(after["created_at"] == before["created_at"])
            #expect(after["updated_at"] != before["updated_at"])
            let commit = try #require(try board.store.commits(after: 0).last)
            #expect(commit.origin == "node-board")
            #expect(Set(commit.changes.first?.changedColumns ?? []) == ["x", "y", "updated_at"])
        }
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
        try await BoardFixture.with { board in
            let id = try board.insertNode()
            let response = try await board.send(.delete, "/api/nodes/\(id)")
            #expect(response.status == .noContent)
            #expect(response.text.isEmpty)
            #expect(try board.nodeRows().isEmpty)
        }
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
