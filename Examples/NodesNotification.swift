import ObservableStore

/// What the node editor's presentation model tells its views (the seed's `NodeCreated` and `NodeSelected`
/// notifications), with the record as payload.
public enum NodesNotification: Sendable, Equatable {
    /// A node was created: by this editor, or by any other process writing the store (storectl, another service).
    case nodeCreated(NodeVO)
    /// The editor selected a node.
    case nodeSelected(NodeVO)
}
