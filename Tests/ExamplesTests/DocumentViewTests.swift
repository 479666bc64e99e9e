import ObservableStore
import ObservableStoreExamples
import StoreTestSupport
import TestScheduling
import Testing

/// A view that records what its document tells it: `name x`, or nil.
private final class RecordingView: NodeDocumentView {
    let seen = Recorder<String?>()
    func documentDidChange(_ node: NodeVO?) { seen.append(node.map { "\($0.name) \(Int($0.x))" }) }
}

/// Document–view: views added and removed by key; every write reaches every registered view.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct DocumentViewTests {
    @Test func everyWriteReachesEveryRegisteredViewUntilItIsRemoved() throws {
        try withTemporaryStore { store, path in
            let nodes = store.repository(NodeVO.self)
            var state = try nodes.insert(NodeVO(name: "doc", x: 0, y: 0))
            let document = NodeDocument(store: store, nodeID: try #require(state.id))
            let inspector = RecordingView()
            let canvas = RecordingView()
            try document.addView(inspector, key: "inspector")
            try document.addView(canvas, key: "canvas")
            #expect(inspector.seen.all == ["doc 0"] && canvas.seen.all == ["doc 0"])
            #expect(document.viewKeys == ["canvas", "inspector"])

            // Every write of the state: through the document, through the repository, by another connection.
            state.x = 1
            try document.setState(state)
            state.x = 2
            try nodes.update(state)
            let other = try SQLiteStore(path: path)
            state.x = 3
            try other.repository(NodeVO.self).update(state)
            other.close()
            _ = try nodes.insert(NodeVO(name: "another node", x: 9, y: 9))  // not the document: nobody is told
            let expected: [String?] = ["doc 0", "doc 1", "doc 2", "doc 3"]
            #expect(inspector.seen.wait(for: 4) && canvas.seen.wait(for: 4))
            #expect(inspector.seen.all == expected && canvas.seen.all == expected)
            #expect(try document.state()?.x == 3)

            // Removed by key: told nothing more. The same key again: the new view replaces the old one.
            #expect(document.removeView(key: "canvas"))
            let newInspector = RecordingView()
            try document.addView(newInspector, key: "inspector")
            #expect(newInspector.seen.all == ["doc 3"])
            state.x = 4
            try document.setState(state)
            #expect(newInspector.seen.wait(for: 2))
            #expect(newInspector.seen.all == ["doc 3", "doc 4"])
            #expect(canvas.seen.all == expected && inspector.seen.all == expected)
            #expect(document.viewKeys == ["inspector"])

            // A delete reaches the views as nil.
            _ = try nodes.delete(state)
            #expect(newInspector.seen.wait(for: 3))
            #expect(newInspector.seen.all.last == .some(nil))
        }
    }
}
