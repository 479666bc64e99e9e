import Foundation
import Observation
import ObservableStore

/// The presentation model of a node editor (the seed's `NodesPM`): one model that every view of the editor reads,
/// built on ``LiveQuery`` and ``LiveRecord``.
///
/// The pattern: views hold no state of their own. They read ``nodes`` and ``selectedNode`` (SwiftUI, or
/// `Observations { }` as ``NodeCanvasView`` does) and call ``createNewNode(named:x:y:)``, ``selectNode(id:)`` and
/// ``moveSelectedNode(byX:y:)``; the model writes the store and never updates its lists by hand. Every commit that
/// changes the nodes, of this process or of another one (storectl, another service), comes back through the live
/// models, so all views, in every process, stay in sync. ``notifications()`` adds the seed's typed notifications:
/// a node was created (by anyone), a node was selected (here).
///
/// For example:
///
/// ```swift
/// let editor = NodesPresentationModel(store: store)
/// try editor.createNewNode(named: "Start", x: 10, y: 20)   // created and selected
/// try editor.moveSelectedNode(byX: 5, y: 0)
/// editor.nodes            // every node by name, current
/// editor.selectedNode     // the selected node as it is in the store now
/// ```
@MainActor @Observable
public final class NodesPresentationModel {
    /// Every node, ordered by name, as the store holds it now.
    public var nodes: [NodeVO] { allNodes.records }

    /// The selected node as the store holds it now (a move by another process shows here); nil when nothing is
    /// selected, or the selected node was deleted.
    public var selectedNode: NodeVO? { selection?.record }

    /// The commit sequence ``nodes`` reflects.
    public var sequence: Int64? { allNodes.sequence }

    @ObservationIgnored private let store: SQLiteStore
    @ObservationIgnored private let allNodes: LiveQuery<NodeVO>
    private var selection: LiveRecord<NodeVO>?
    @ObservationIgnored private let broadcast = Broadcast<NodesNotification>()
    @ObservationIgnored private var creations: ListenerToken?

    /// A presentation model of the nodes in `store`; its properties change on the main actor.
    public init(store: SQLiteStore) {
        self.store = store
        allNodes = LiveQuery(RecordQuery<NodeVO>().order(by: "name").order(by: "id"), in: store)
        // Immediate: this editor's own creation is announced before createNewNode returns, so before the selection.
        let broadcast = broadcast
        creations = store.listen(
            "nodes-pm-\(UUID().uuidString).created", to: NodeVO.self, options: ListenerOptions(immediate: true)
        ) { event in
            guard case .commit(let commit) = event else { return }
            for change in commit.changes where change.operation == .insert {
                if let node = change.new { broadcast.send(.nodeCreated(node)) }
            }
        }
    }

    deinit {
        broadcast.finish()
    }

    /// The model's notifications from now on, until the consumer stops iterating (one stream per view).
    public func notifications() -> AsyncStream<NodesNotification> {
        broadcast.subscribe()
    }

    /// Creates a node and selects it; returns it with its id.
    @discardableResult
    public func createNewNode(named name: String, x: Double, y: Double) throws -> NodeVO {
        let node = try store.repository(NodeVO.self).insert(NodeVO(name: name, x: x, y: y))
        if let id = node.id { selectNode(id: id) }
        return node
    }

    /// Selects the node `id` (nil: nothing), and tells the views when there is such a node.
    public func selectNode(id: Int64?) {
        selection = id.map { LiveRecord(NodeVO.self, key: $0, in: store) }
        if let node = selection?.record { broadcast.send(.nodeSelected(node)) }
    }

    /// Moves the selected node by `dx`, `dy`, from where the store has it now (not from what this model last saw).
    public func moveSelectedNode(byX dx: Double, y dy: Double) throws {
        guard let id = selection?.key else { return }
        try store.write { tx in
            guard var node = try tx.fetch(NodeVO.self, key: id) else { return }
            node.x += dx
            node.y += dy
            node.updatedAt = Date()
            try tx.update(node, columns: ["x", "y", "updated_at"])
        }
    }
}
