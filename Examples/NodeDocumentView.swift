import ObservableStore

/// A view of a ``NodeDocument``: told the document's state each time it is written.
public protocol NodeDocumentView: AnyObject, Sendable {
    /// The document's node as it is now; nil when it was deleted. Called on a delivery thread of the store, one
    /// call at a time, in commit order.
    func documentDidChange(_ node: NodeVO?)
}
