import Foundation
import ObservableStore

/// VIPER (a presenter holding its views weakly; the interactor does the work): the presenter tells each attached
/// view the nodes' names, now and after each change to the nodes.
///
/// The pattern: a view is owned by whatever shows it (a window, a navigation stack), never by the presenter. The
/// presenter attaches a view as the owner of a store listener
/// (``/ObservableStore/SQLiteStore/listen(_:owner:filter:options:handler:)``), which holds it weakly: a released view is
/// not kept alive, receives nothing, and its listener removes itself at the next change. There is nothing to detach.
///
/// For example:
///
/// ```swift
/// let presenter = NodeListPresenter(store: store)
/// try presenter.attach(listView, name: "list")   // shows the names now, then after each change
/// try presenter.addNode(named: "Start")          // the interactor writes; the view shows it
/// ```
public final class NodeListPresenter: Sendable {
    private let store: SQLiteStore
    private let interactor: NodeListInteractor

    /// A presenter of the nodes in `store`.
    public init(store: SQLiteStore) {
        self.store = store
        interactor = NodeListInteractor(store: store)
    }

    /// Shows the names in `view` now, then after each change to the nodes, while `view` exists. `name` names the
    /// view's listener in the store: attaching another view under the same name replaces it.
    public func attach(_ view: some NodeListViewing, name: String) throws {
        // Listen first, then show: a commit made meanwhile is not missed. Each read and show take turns, so the
        // last names shown are never older than the last commit (the first show cannot overwrite a newer one).
        let interactor = interactor
        let turn = NSLock()
        store.listen("presenter.\(name)", owner: view, filter: .table(NodeVO.tableName)) { view, _ in
            try turn.withLock { view.show(names: try interactor.nodeNames()) }
        }
        try turn.withLock { view.show(names: try interactor.nodeNames()) }
    }

    /// The user asked for a new node: the interactor adds it, and the attached views show it.
    public func addNode(named name: String) throws {
        try interactor.addNode(named: name)
    }
}
