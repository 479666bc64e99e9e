/// A set of listeners with constant-time insertion and removal, read as an array without copying it.
package struct ListenerSet {
    /// The members, in no particular order.
    private(set) var listeners: [Listener] = []
    private var positions: [ObjectIdentifier: Int] = [:]

    /// Whether the set is empty.
    package var isEmpty: Bool { listeners.isEmpty }
    /// How many listeners the set holds.
    package var count: Int { listeners.count }

    /// Adds `listener` unless it is a member already.
    package mutating func insert(_ listener: Listener) {
        let id = ObjectIdentifier(listener)
        guard positions[id] == nil else { return }
        positions[id] = listeners.count
        listeners.append(listener)
    }

    /// Removes `listener`; returns whether it was a member. The last member takes its place.
    @discardableResult
    package mutating func remove(_ listener: Listener) -> Bool {
        guard let position = positions.removeValue(forKey: ObjectIdentifier(listener)) else { return false }
        let last = listeners.removeLast()
        if position < listeners.count {
            listeners[position] = last
            positions[ObjectIdentifier(last)] = position
        }
        return true
    }
}
