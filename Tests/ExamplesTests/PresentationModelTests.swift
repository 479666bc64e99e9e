import Foundation
import ObservableStore
import ObservableStoreExamples
import StoreTestSupport
import TestScheduling
import Testing

/// The node editor's presentation model: a view in this process and storectl in another stay in sync, both ways,
/// and the model announces creations (anyone's) and selections.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct PresentationModelTests {
    @MainActor @Test func aViewHereAndStorectlInAnotherProcessStayInSync() async throws {
        try await withTemporaryStore { store, path in
            let editor = NodesPresentationModel(store: store)
            let canvas = NodeCanvasView(model: editor)
            let notifications = Recorder<String>()
            let stream = editor.notifications()
            let listening = Task {
                for await notification in stream {
                    switch notification {
                    case .nodeCreated(let node): notifications.append("created \(node.name)")
                    case .nodeSelected(let node): notifications.append("selected \(node.name)")
                    }
                }
            }
            defer { listening.cancel() }
            // The other view: `storectl watch` in another process, printing every change to the nodes from now on.
            // It exits after its fourth event; the timeout is only a backstop (a loaded CI machine is slow).
            let before = try store.lastSequence()
            let watch = ["--db", path, "watch", "nodes", "--since", "\(before)", "--count", "4", "--timeout", "300s"]
            let watcher = try RunningProcess("storectl", watch, environment: ["NO_COLOR": "1"])

            // This process's view edits: a node, created and selected, then moved.
            let a = try editor.createNewNode(named: "A", x: 10, y: 20)
            let id = try #require(a.id)
            #expect(editor.selectedNode?.name == "A")
            try editor.moveSelectedNode(byX: 5, y: 0)
            try await waitUntil("the canvas to show the moved node") { canvas.lines == ["*A (15, 20)"] }

            // The other process edits: it creates a node, and moves the selected one.
            let insert = try run("storectl", ["--db", path, "insert", "nodes", #"{"name":"B","x":1,"y":2}"#])
            #expect(insert.status == 0, "\(insert.stderr)")
            let update = try run("storectl", ["--db", path, "update", "nodes", "\(id)", "--set", "x=100"])
            #expect(update.status == 0, "\(update.stderr)")
            try await waitUntil("the canvas to show storectl's edits") {
                canvas.lines == ["*A (100, 20)", "B (1, 2)"]
            }
            #expect(editor.nodes.map(\.name) == ["A", "B"])
            #expect(editor.selectedNode?.x == 100)
            try await waitUntil("the notifications") { notifications.count == 3 }
            #expect(notifications.all == ["created A", "selected A", "created B"])

            // storectl's watch saw this process's edits and the other process's, in commit order.
            let watched = await Task.detached { watcher.wait(timeout: 60) }.value
            #expect(watched.status == 0, "\(watched.stderr)")
            let events = try watched.stdout.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(events.map { $0["op"] as? String } == ["insert", "update", "insert", "update"], "\(watched.stdout)")
            #expect(events.map { $0["id"] as? Int } == [Int(id), Int(id), Int(id) + 1, Int(id)], "\(watched.stdout)")
            let moved = try #require(events[1]["changes"] as? [String: Any], "\(watched.stdout)")
            #expect((moved["x"] as? NSNumber)?.doubleValue == 15, "\(watched.stdout)")
        }
    }

    @MainActor @Test func selectingANodeAnnouncesItAndFollowsItUntilItIsDeleted() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            let b = try nodes.insert(NodeVO(name: "B", x: 0, y: 0))
            let editor = NodesPresentationModel(store: store)
            #expect(editor.nodes.map(\.name) == ["B"])
            #expect(editor.selectedNode == nil)
            let notifications = Recorder<NodesNotification>()
            let stream = editor.notifications()
            let listening = Task { for await notification in stream { notifications.append(notification) } }
            defer { listening.cancel() }
            editor.selectNode(id: b.id)
            #expect(editor.selectedNode == b)
            try await waitUntil("the selection to be announced") { notifications.count == 1 }
            #expect(notifications.all == [.nodeSelected(b)])
            try editor.moveSelectedNode(byX: 1, y: 2)
            try await waitUntil("the move") { editor.selectedNode?.x == 1 && editor.selectedNode?.y == 2 }
            _ = try nodes.delete(key: try #require(b.id))
            try await waitUntil("the delete") { editor.selectedNode == nil && editor.nodes.isEmpty }
            try editor.moveSelectedNode(byX: 1, y: 1)  // nothing to move: no write
            editor.selectNode(id: nil)
            #expect(notifications.count == 1)
        }
    }
}
