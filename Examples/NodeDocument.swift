import ObservableStore
import Synchronization

/// Document–view (the seed's `addView(key:)`, `removeView(key:)`, and a `state` setter that notifies all views):
/// a document, here one node of the store, and the views registered on it by key.
///
/// The pattern: views are added and removed by key (adding a key again replaces its view); every write of the
/// document's state reaches every registered view, in commit order, whoever wrote it (``setState(_:)``, another
/// part of the app, another process). Each view is a listener of the store bound to the node's key, so a write to
/// another node reaches none. The document holds its views (and their listeners) until they are removed, or
/// until the document is released.
///
/// For example:
///
/// ```swift
/// let document = NodeDocument(store: store, nodeID: 7)
/// try document.addView(inspector, key: "inspector")   // told the state now, then after each write
/// try document.addView(canvas, key: "canvas")
/// try document.setState(node)                         // both are told
/// document.removeView(key: "canvas")
/// ```
public final class NodeDocument: Sendable {
    /// The primary key of the document's node.
    public let nodeID: Int64
    private let store: SQLiteStore
    private let views = Mutex<[String: ListenerToken]>([:])
    private let documentID = UInt64.random(in: 0...UInt64.max)

    /// The document of node `nodeID` in `store`, with no view.
    public init(store: SQLiteStore, nodeID: Int64) {
        self.store = store
        self.nodeID = nodeID
    }

    /// Registers `view` under `key`: it is told the state now, then after each write. A view already registered
    /// under `key` is replaced, and told nothing more.
    public func addView(_ view: some NodeDocumentView, key: String) throws {
        let token = try store.bindAndFire("document-\(documentID).view.\(key)", NodeVO.self, key: nodeID) { node in
            view.documentDidChange(node)
        }
        let replaced = views.withLock { $0.updateValue(token, forKey: key) }
        _ = replaced
    }

    /// Removes the view registered under `key`; when this returns it is not being told anything and never will
    /// be. Returns whether there was one.
    @discardableResult
    public func removeView(key: String) -> Bool {
        let removed = views.withLock { $0.removeValue(forKey: key) }
        removed?.cancel()
        return removed != nil
    }

    /// The keys of the registered views, sorted.
    public var viewKeys: [String] { views.withLock { $0.keys.sorted() } }

    /// The document's state: the node as the store holds it now.
    public func state() throws -> NodeVO? {
        try store.repository(NodeVO.self).fetch(nodeID)
    }

    /// Writes the document's state (`node`, under the document's key): every registered view is told.
    public func setState(_ node: NodeVO) throws {
        var node = node
        node.id = nodeID
        try store.write { tx in
            if try tx.fetch(NodeVO.self, key: nodeID) == nil {
                _ = try tx.insert(node)
            } else {
                try tx.update(node)
            }
        }
    }
}
