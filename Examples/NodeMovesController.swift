import ObservableStore
import Synchronization

/// The controller of event-driven MVC (``NodeEvent``): it subscribes to the model's events and turns the moves
/// into what its view shows, a log of moves.
///
/// The pattern: the controller owns its subscription's lifetime through the token (the invalidator) it keeps.
/// ``stop()`` drops the token, and so does releasing the controller: either way delivery ends, the store's
/// listener is removed, and nothing reaches the controller afterwards. No unsubscribe call can be forgotten.
///
/// For example:
///
/// ```swift
/// var controller: NodeMovesController? = NodeMovesController(store: store)
/// try store.repository(NodeVO.self).update(moved)   // controller?.moves gets the node
/// controller = nil                                   // the subscription ends with it
/// ```
public final class NodeMovesController: Sendable {
    private let invalidator: Mutex<ListenerToken?>
    private let log: MoveLog

    /// A controller subscribed to the node events of `store`.
    public init(store: SQLiteStore) {
        // The handler holds the log, not the controller: releasing the controller releases the token.
        let log = MoveLog()
        self.log = log
        invalidator = Mutex(
            NodeEvent.subscribe(in: store) { event in
                guard case .moved(let node) = event else { return }
                log.lines.withLock { $0.append("\(node.name) → (\(node.x), \(node.y))") }
            })
    }

    /// The moves seen so far, oldest first: `name → (x, y)`.
    public var moves: [String] { log.lines.withLock { $0 } }

    /// Whether the subscription is still active.
    public var isSubscribed: Bool { invalidator.withLock { $0.map { !$0.isCancelled } ?? false } }

    /// Drops the invalidator: no event reaches the controller after this returns.
    public func stop() {
        let token = invalidator.withLock { token in
            defer { token = nil }
            return token
        }
        token?.cancel()
    }
}

/// The controller's view state, shared with its subscription's handler.
private final class MoveLog: Sendable {
    let lines = Mutex<[String]>([])
}
