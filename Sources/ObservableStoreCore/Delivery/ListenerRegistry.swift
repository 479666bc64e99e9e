import Logging
import Synchronization

/// The listeners of one store, the handle through which ``ListeningStore``'s methods work; its members are the
/// library's own. Named listeners (a name registered again replaces its listener), `changes()`
/// streams (no name), and the async sequences to end when the store closes.
///
/// Listeners are indexed by the tables and keys of their filters (`ListenerIndex`): publishing a commit
/// costs in proportion to the listeners it may match, not to all of them, and registering one costs in
/// proportion to its filter. `CommitPublisher` reads copies of the indexes (`indexes`).
public final class ListenerRegistry: Sendable {
    /// What the store's listeners share for delivery.
    package let context: DeliveryContext
    private let logger: Logger
    private let errorHandler: (@Sendable (String, any Error) -> Void)?
    private let state = Mutex(State())

    private struct State {
        var byName: [String: Listener] = [:]
        var streams = ListenerSet()
        var immediate = ListenerIndex()
        var queued = ListenerIndex()
        var channels: [WeakChannel] = []
        var isClosed = false

        /// Adds `listener` to its index.
        mutating func index(_ listener: Listener) {
            if listener.isImmediate { immediate.insert(listener) } else { queued.insert(listener) }
        }

        /// Removes `listener` from its index.
        mutating func unindex(_ listener: Listener) {
            if listener.isImmediate { immediate.remove(listener) } else { queued.remove(listener) }
        }
    }

    private struct WeakChannel {
        weak var channel: (any FinishableChannel)?
    }

    /// A registry whose listeners log through `logger`, tell `errorHandler` about each error a handler
    /// throws, and deliver within `context`.
    package init(context: DeliveryContext, logger: Logger, errorHandler: (@Sendable (String, any Error) -> Void)?) {
        self.context = context
        self.logger = logger
        self.errorHandler = errorHandler
    }

    /// A listener of this registry, not yet registered. `held` listeners queue what they are offered until
    /// ``Listener/release(after:initial:)`` (bind-and-fire); a stream has no name to replace.
    package func makeListener(
        _ name: String, filter: ChangeFilter, options: ListenerOptions, held: Bool = false, isStream: Bool = false,
        handler: @escaping @Sendable (StoreEvent) throws -> Bool
    ) -> Listener {
        Listener(
            name: name, filter: filter, options: options, held: held, isStream: isStream, context: context, logger: logger,
            errorHandler: errorHandler, handler: handler)
    }

    /// Registers `listener` (replacing any listener of the same name) and returns its token; a `detached`
    /// token does not cancel the listener when released.
    package func register(_ listener: Listener, detached: Bool = false) -> ListenerToken {
        insert(listener)
        return ListenerToken(listener: listener, registry: self, cancelsOnRelease: !detached)
    }

    /// Logs `error` of listener `name` and tells the error handler.
    package func report(_ error: StoreError, listener name: String) {
        logger.error("\(error.message)", metadata: ["listener": "\(name)"])
        errorHandler?(name, error)
    }

    /// Registers `listener`, replacing (and cancelling) any listener of the same name; a stream
    /// (``Listener/isStream``) has no name to replace. When this returns, the replaced listener's handler
    /// is not running and will not run again.
    package func insert(_ listener: Listener) {
        listener.registry = self
        let replaced = state.withLock { state -> Listener? in
            if listener.isStream {
                state.streams.insert(listener)
                state.index(listener)
                return nil
            }
            let old = state.byName.updateValue(listener, forKey: listener.name)
            if let old { state.unindex(old) }
            state.index(listener)
            return old
        }
        replaced?.cancel()
    }

    /// Removes the listener called `name`, if any; returns whether there was one.
    @discardableResult
    package func remove(name: String) -> Bool {
        let removed = state.withLock { state -> Listener? in
            let removed = state.byName.removeValue(forKey: name)
            if let removed { state.unindex(removed) }
            return removed
        }
        removed?.cancel()
        return removed != nil
    }

    /// Removes `listener` if it is still the one registered under its name (or a registered stream);
    /// cancels it either way.
    package func remove(_ listener: Listener) {
        state.withLock { state in
            if listener.isStream {
                if state.streams.remove(listener) { state.unindex(listener) }
            } else if state.byName[listener.name] === listener {
                state.byName.removeValue(forKey: listener.name)
                state.unindex(listener)
            }
        }
        listener.cancel()
    }

    /// Remembers `channel` so that closing the store ends its sequence.
    package func track(_ channel: any FinishableChannel) {
        let closed = state.withLock { state -> Bool in
            state.channels.removeAll { $0.channel == nil }
            if !state.isClosed { state.channels.append(WeakChannel(channel: channel)) }
            return state.isClosed
        }
        if closed { channel.finish() }
    }

    /// Ends every change sequence, removes every listener and stops the delivery thread (the store is closing).
    package func close() {
        let (listeners, open) = state.withLock { state -> ([Listener], [any FinishableChannel]) in
            let listeners = state.immediate.all.listeners + state.queued.all.listeners
            let open = state.channels.compactMap(\.channel)
            state = State()
            state.isClosed = true
            return (listeners, open)
        }
        for listener in listeners { listener.cancel() }
        for channel in open { channel.finish() }
        context.thread.stop()
    }

    /// The names of the registered listeners, sorted; `changes()` streams are not among them.
    package var names: [String] { state.withLock { $0.byName.keys.sorted() } }

    /// How many `changes()` streams are registered.
    package var streamCount: Int { state.withLock { $0.streams.count } }

    /// Copies of the two indexes as they are now (no listener is copied until the next change to an index):
    /// a listener registered after a commit was published does not get it, even when matched later.
    package var indexes: (immediate: ListenerIndex, queued: ListenerIndex) {
        state.withLock { ($0.immediate, $0.queued) }
    }

    /// Whether no listener is registered.
    package var isEmpty: Bool { state.withLock { $0.immediate.isEmpty && $0.queued.isEmpty } }
}
