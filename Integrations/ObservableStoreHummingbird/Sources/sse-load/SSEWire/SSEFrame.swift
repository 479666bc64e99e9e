/// One Server-Sent Events frame as a client receives it: the fields up to a blank line.
///
/// A heartbeat (`: ping`) is a frame with a comment and no fields; the stream's first frame, `retry: 1000`, has only
/// ``retry``. Neither is an event.
public struct SSEFrame: Sendable, Equatable {
    /// The `id:` field, if the frame had one.
    public var id: String?
    /// The `event:` field (nil when absent: a "message").
    public var event: String?
    /// The `data:` lines, joined with line feeds.
    public var data: String
    /// The `retry:` field: the reconnect delay in milliseconds, if the frame set it.
    public var retry: Int?
    /// The comment lines (after the `:`, leading space removed).
    public var comments: [String]
    /// Nanoseconds since 1970 when the bytes that completed the frame were read (0 when not recorded).
    public var receivedAt: UInt64

    /// A frame with these fields.
    public init(
        id: String? = nil, event: String? = nil, data: String = "", retry: Int? = nil, comments: [String] = [], receivedAt: UInt64 = 0
    ) {
        self.id = id
        self.retry = retry
        self.event = event
        self.data = data
        self.comments = comments
        self.receivedAt = receivedAt
    }

    /// The `id:` as a commit sequence, if it is a number.
    public var sequence: Int64? { id.flatMap { Int64($0) } }

    /// Whether this frame is only a comment (a heartbeat).
    public var isComment: Bool { id == nil && event == nil && data.isEmpty && !comments.isEmpty }

    /// Whether this frame is an event (it has an `id:`, an `event:` or data), not a heartbeat or a `retry:` alone.
    public var isEvent: Bool { id != nil || event != nil || !data.isEmpty }
}
