import Observation
import ObservableStore

/// A view of the node editor: it renders what the presentation model holds, each time it changes, and keeps
/// no state of its own (``NodesPresentationModel``).
///
/// It follows the model with `Observations { }` (what SwiftUI does for a view's `body`): a burst of changes may
/// render once, with the latest state.
@MainActor
public final class NodeCanvasView {
    /// The lines the view shows now: one per node, `name (x, y)`, the selected node marked with `*`.
    public private(set) var lines: [String] = []
    private var rendering: Task<Void, Never>?

    /// A view of `model`, rendered now and after each change.
    public init(model: NodesPresentationModel) {
        lines = Self.render(model)
        rendering = Task { [weak self] in
            for await lines in Observations({ Self.render(model) }) {
                guard let self else { return }
                self.lines = lines
            }
        }
    }

    deinit {
        rendering?.cancel()
    }

    /// The lines for `model`'s state.
    private static func render(_ model: NodesPresentationModel) -> [String] {
        model.nodes.map { node in
            let mark = node.id != nil && node.id == model.selectedNode?.id ? "*" : ""
            return "\(mark)\(node.name) (\(formatted(node.x)), \(formatted(node.y)))"
        }
    }

    private static func formatted(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
