import ObservableStore

/// The interactor of the VIPER example (``NodeListPresenter``): it does the work, reading and writing the store,
/// and knows nothing of views.
public struct NodeListInteractor: Sendable {
    private let store: SQLiteStore

    /// An interactor on `store`.
    public init(store: SQLiteStore) { self.store = store }

    /// The names of every node, in name order.
    public func nodeNames() throws -> [String] {
        try store.repository(NodeVO.self).fetchAll(RecordQuery<NodeVO>().order(by: "name")).map(\.name)
    }

    /// Adds a node called `name` at the origin.
    public func addNode(named name: String) throws {
        _ = try store.repository(NodeVO.self).insert(NodeVO(name: name, x: 0, y: 0))
    }
}
