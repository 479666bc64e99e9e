import ObservableStore
import ObservableStoreExamples
import StoreTestSupport
import TestScheduling
import Testing

/// Event-driven MVC: typed events from the store to a controller, whose invalidator owns the subscription.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct EventDrivenMVCTests {
    @Test func theControllerSeesTheModelsEventsUntilItDropsItsInvalidator() async throws {
        try await withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            let controller = NodeMovesController(store: store)
            #expect(controller.isSubscribed)
            var node = try nodes.insert(NodeVO(name: "a", x: 0, y: 0))
            node.name = "renamed"  // a change, not a move
            try nodes.update(node)
            node.x = 5
            try nodes.update(node)
            try await waitUntil("the move") { controller.moves.count == 1 }
            #expect(controller.moves == ["renamed → (5.0, 0.0)"])

            controller.stop()
            #expect(!controller.isSubscribed)
            #expect(store.listenerNames.isEmpty)
            node.x = 6
            try nodes.update(node)
            try await Task.sleep(for: .milliseconds(100))  // room for a wrong delivery
            #expect(controller.moves == ["renamed → (5.0, 0.0)"])
        }
    }

    @Test func releasingTheControllerDropsItsInvalidator() throws {
        try withTemporaryStore { store, _ in
            var controller: NodeMovesController? = NodeMovesController(store: store)
            weak let released = controller
            #expect(store.listenerNames.count == 1)
            controller = nil
            #expect(released == nil)  // the store's listener does not keep the controller alive
            #expect(store.listenerNames.isEmpty)  // and its token went with it
        }
    }

    @Test func theEventsAreTyped() throws {
        try withTemporaryStore { store, _ in
            let events = Recorder<NodeEvent>()
            let invalidator = NodeEvent.subscribe(in: store) { events.append($0) }
            let nodes = store.repository(NodeVO.self)
            var node = try nodes.insert(NodeVO(name: "a", x: 0, y: 0))
            node.color = "#FF0000"
            try nodes.update(node)
            node.y = 3
            try nodes.update(node)
            _ = try nodes.delete(node)
            #expect(events.wait(for: 4))
            #expect(events.all.map(Self.kind) == ["added", "changed", "moved", "removed"])
            invalidator.cancel()
            #expect(store.listenerNames.isEmpty)
        }
    }

    private static func kind(_ event: NodeEvent) -> String {
        switch event {
        case .added: "added"
        case .moved: "moved"
        case .changed: "changed"
        case .removed: "removed"
        }
    }
}
