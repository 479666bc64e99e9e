import Foundation
import Hummingbird
import ObservableStore

/// One Server-Sent Events frame, encoded once into bytes that every client it goes to shares.
struct EventFrame: Sendable {
    /// The frame's text, ready to write.
    let bytes: ByteBuffer
    /// The commit sequence the frame is about (nil for a heartbeat); every piece of a commit carries it.
    let sequence: Int64?
    /// When the commit was made, for a live commit frame (nil otherwise): the start of its delivery latency.
    let committedAt: Date?
    /// Why the frame tells the client to refetch, for a resync frame.
    var resync: CommitStream.ResyncReason? = nil

    /// The heartbeat comment, `: ping`.
    static let heartbeat = EventFrame(bytes: ByteBuffer(string: ": ping\n\n"), sequence: nil, committedAt: nil)

    /// The first line of every stream, `retry: 1000`: a browser's `EventSource` reconnects 1 s after the
    /// connection drops (it would otherwise wait its default, about 3 s).
    static let reconnectDelay = EventFrame(bytes: ByteBuffer(string: "retry: 1000\n\n"), sequence: nil, committedAt: nil)

    /// A commit (or a piece of one): `event: commit` with the ``CommitJSON`` object as data, and an `id:` line on
    /// the commit's last piece only, so a client resumes after whole commits.
    static func commit(_ commit: Commit, live: Bool) -> EventFrame {
        let id = commit.isLastPiece ? "id: \(commit.sequence)\n" : ""
        return EventFrame(
            bytes: ByteBuffer(string: id + "event: commit\ndata: " + CommitJSON.object(commit) + "\n\n"),
            sequence: commit.sequence, committedAt: live ? commit.committedAt : nil)
    }

    /// `event: resync` at `sequence`, the position the stream continues after.
    static func resync(_ reason: CommitStream.ResyncReason, at sequence: Int64) -> EventFrame {
        EventFrame(
            bytes: ByteBuffer(
                string: "id: \(sequence)\nevent: resync\ndata: {\"reason\":\"\(reason.rawValue)\",\"seq\":\(sequence)}\n\n"),
            sequence: sequence, committedAt: nil, resync: reason)
    }
}
