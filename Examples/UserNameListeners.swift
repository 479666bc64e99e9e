import ObservableStore
import Synchronization

/// Property listeners (the seed's `UserInfo.name` with named listeners): each part of an app that shows a user's
/// name registers a listener under a name of its own, and gets the name at once, then each time it changes.
///
/// The pattern: a listener is known by its name, so registering the same name again replaces it (a screen shown
/// twice does not listen twice, and the set of listeners never grows without bound); ``removeNameListener(_:)``
/// takes it away by name. Bind and fire (``/ObservableStore/SQLiteStore/bindAndFire(_:_:key:_:options:handler:)``) calls
/// the listener with the current name before it returns, then only when the name changes: a change to another
/// column of the user (its hair color) does not call it. The names here are what the store's listeners are
/// called, under a prefix of this user (`UserInfo.name.<user>.<listener>`).
///
/// For example:
///
/// ```swift
/// let name = UserNameListeners(store: store, userID: "me")
/// try name.bindAndFireNameListener("header") { header.title = $0 ?? "" }
/// try name.bindAndFireNameListener("header") { header.subtitle = $0 ?? "" }   // replaces the first
/// try name.setName("Grace")                                                    // the subtitle shows it
/// ```
public final class UserNameListeners: Sendable {
    /// The user whose name is listened to.
    public let userID: String
    private let store: SQLiteStore
    private let tokens = Mutex<[String: ListenerToken]>([:])

    /// Listeners of the name of the user `userID` in `store`.
    public init(store: SQLiteStore, userID: String) {
        self.store = store
        self.userID = userID
    }

    /// Calls `listener` with the user's name now (nil while there is no such user), then each time it changes.
    /// A listener already registered under `name` is replaced: it is not called again.
    public func bindAndFireNameListener(_ name: String, _ listener: @escaping @Sendable (String?) -> Void) throws {
        let token = try store.bindAndFire(
            storeListenerName(name), UserInfo.self, key: userID, \.name, handler: listener)
        // The store replaced the old listener of that name; releasing its token does not touch the new one.
        let replaced = tokens.withLock { $0.updateValue(token, forKey: name) }
        _ = replaced
    }

    /// Removes the listener registered under `name`; returns whether there was one.
    @discardableResult
    public func removeNameListener(_ name: String) -> Bool {
        let removed = tokens.withLock { $0.removeValue(forKey: name) }
        removed?.cancel()
        return removed != nil
    }

    /// The names of the registered listeners, sorted.
    public var listenerNames: [String] { tokens.withLock { $0.keys.sorted() } }

    /// Sets the user's name (creating the user if there is none): every listener is called with it.
    public func setName(_ name: String) throws {
        try store.write { tx in
            if var user = try tx.fetch(UserInfo.self, key: userID) {
                user.name = name
                try tx.update(user, columns: ["name"])
            } else {
                _ = try tx.insert(UserInfo(id: userID, name: name))
            }
        }
    }

    /// The name of the store's listener for `name`.
    private func storeListenerName(_ name: String) -> String { "UserInfo.name.\(userID).\(name)" }
}
