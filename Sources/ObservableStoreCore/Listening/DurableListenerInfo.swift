import Foundation

/// One durable listener's cursor, as its engine stores it (the SQLite engine: in `_store_listeners`).
public struct DurableListenerInfo: Sendable, Equatable {
    /// The listener's name.
    public let name: String
    /// The last commit sequence it acknowledged.
    public let cursor: Int64
    /// How many commits were made after its cursor.
    public let lag: Int64
    /// When its cursor last moved.
    public let updatedAt: Date

    /// A listener's cursor as an engine reads it.
    package init(name: String, cursor: Int64, lag: Int64, updatedAt: Date) {
        self.name = name
        self.cursor = cursor
        self.lag = lag
        self.updatedAt = updatedAt
    }
}
