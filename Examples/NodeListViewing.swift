/// A view of the VIPER example (``NodeListPresenter``): shows what its presenter tells it.
public protocol NodeListViewing: AnyObject, Sendable {
    /// Shows the nodes' names. Called on a delivery thread of the store (the first time, on the attaching thread).
    func show(names: [String])
}
