import Foundation
import Hummingbird
import NodeBoard
import ObservableStore
import Testing

/// The board's REST cases over a store of either engine: `NodeRoutesTests` runs them on SQLite,
/// `PostgresNodeRoutesTests` on PostgreSQL.
enum NodeBoardCases {
    /// `POST /api/nodes` answers 201 with the stored node (defaults filled in, columns in table order) and its
    /// location, in one commit with the board's origin.
    static func createReturns201WithTheStoredNodeAndLocation(_ board: BoardFixture<some RecordStore>) async throws {
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

    /// `PATCH` writes the given fields and `updated_at`, nothing else, in one commit.
    static func patchWritesOnlyTheGivenFields(_ board: BoardFixture<some RecordStore>) async throws {
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

    /// `DELETE` answers 204 with no body, and the row is gone.
    static func deleteReturns204(_ board: BoardFixture<some RecordStore>) async throws {
        let id = try board.insertNode()
        let response = try await board.send(.delete, "/api/nodes/\(id)")
        #expect(response.status == .noContent)
        #expect(response.text.isEmpty)
        #expect(try board.nodeRows().isEmpty)
    }
}
