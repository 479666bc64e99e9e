import ObservableStore

/// How a ``CommitStream`` streams: which changes, how often it sends heartbeats, how much it buffers per client.
///
/// For example, a stream of the `nodes` table with a heartbeat every 5 s:
///
/// ```swift
/// let stream = try service.commitStream(CommitStreamOptions(name: "nodes", filter: .table("nodes"), heartbeatInterval: .seconds(5)))
/// ```
public struct CommitStreamOptions: Sendable {
    /// The stream's name: the `stream` dimension of its metrics and part of its store listener's name.
    public var name: String
    /// The changes the stream sends; a commit with none of them is not sent (a schema change always is).
    public var filter: ChangeFilter
    /// How often an idle client gets a heartbeat comment (`: ping`), which also reveals clients that went away.
    /// 15 s by default.
    public var heartbeatInterval: Duration
    /// How many frames may wait for one client. Past that they are dropped and the client gets one
    /// `event: resync` with reason `overflow` instead. 1024 by default.
    public var clientBufferSize: Int

    /// Options; the defaults stream every change, with a heartbeat every 15 s and 1024 frames per client.
    public init(
        name: String = "events", filter: ChangeFilter = .all, heartbeatInterval: Duration = .seconds(15),
        clientBufferSize: Int = 1024
    ) {
        self.name = name
        self.filter = filter
        self.heartbeatInterval = heartbeatInterval
        self.clientBufferSize = clientBufferSize
    }
}
