import Foundation
import ObservableStore

/// Event-driven MVC (the seed's Mvce: model, view, controller, event): what the model, the store's nodes, tells a
/// controller. The store's commits become these typed events; a controller subscribes, and its subscription lives
/// as long as the ``/ObservableStore/ListenerToken`` it gets back (the seed's `Invalidator`). See
/// ``NodeMovesController``.
public enum NodeEvent: Sendable, Equatable {
    /// A node was added.
    case added(NodeVO)
    /// A node's position changed.
    case moved(NodeVO)
    /// A node changed in another way (its name, color or size).
    case changed(NodeVO)
    /// A node was removed; its id.
    case removed(Int64)

    /// Delivers the node events of every commit to `handler`, in commit order, on a delivery thread of `store`,
    /// until the returned token is cancelled or released: the token is the subscription's invalidator.
    public static func subscribe(
        in store: SQLiteStore, _ handler: @escaping @Sendable (NodeEvent) -> Void
    ) -> ListenerToken {
        store.listen("node-events-\(UUID().uuidString)", to: NodeVO.self) { event in
            guard case .commit(let commit) = event else { return }
            for change in commit.changes {
                switch change.operation {
                case .insert: if let node = change.new { handler(.added(node)) }
                case .delete: if let id = change.old?.id { handler(.removed(id)) }
                case .update:
                    guard let node = change.new else { continue }
                    let moved = change.changedColumns.contains("x") || change.changedColumns.contains("y")
                    handler(moved ? .moved(node) : .changed(node))
                }
            }
        }
    }
}
