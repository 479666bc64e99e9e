import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import ObservableStore
import ServiceLifecycle

extension CommitStream {
    /// The `Last-Event-ID` header, which `EventSource` sends when it reconnects.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    /// Asks proxies (nginx) not to buffer the stream.
    static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!

    /// The response to one client's request: `200` with a `text/event-stream` body that replays the commits after
    /// the resume point (the `Last-Event-ID` header, else the `since` query parameter, else the current last
    /// sequence), then streams live ones until the client goes away, graceful shutdown begins, or ``finish()``.
    ///
    /// A resume point that is not a sequence number gets `400` with a JSON error
    /// (`{"error":{"code":"bad_parameter","message":"…","field":"since"}}`); a finished stream answers `503`.
    public func response(to request: Request) -> Response {
        let resume: Int64?
        switch Self.resumePoint(of: request) {
        case .success(let point): resume = point
        case .failure(let field): return Self.badParameter(field)
        }
        guard !isFinished else { return Response(status: .serviceUnavailable) }
        let headers: HTTPFields = [
            .contentType: "text/event-stream", .cacheControl: "no-store", Self.accelBuffering: "no",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in try await self.serve(after: resume, writer: &writer) })
    }

    /// What a malformed resume point names.
    struct BadResumePoint: Error {
        let field: String
    }

    /// The resume point a request asks for; the header wins over the query parameter.
    static func resumePoint(of request: Request) -> Result<Int64?, BadResumePoint> {
        func parse(_ text: Substring, field: String) -> Result<Int64?, BadResumePoint> {
            guard let point = Int64(text.trimmingCharacters(in: .whitespaces)), point >= 0 else { return .failure(BadResumePoint(field: field)) }
            return .success(point)
        }
        if let header = request.headers[lastEventID] { return parse(header[...], field: "Last-Event-ID") }
        if let since = request.uri.queryParameters["since"] { return parse(since, field: "since") }
        return .success(nil)
    }

    private static func badParameter(_ error: BadResumePoint) -> Response {
        let json = "{\"error\":{\"code\":\"bad_parameter\",\"message\":"
            + JSONText.string("\(error.field) must be a commit sequence number (an integer, 0 or more)")
            + ",\"field\":\(JSONText.string(error.field))}}"
        return Response(status: .badRequest, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// Serves one client: registers its queue, sends the reconnect delay, replays the log after `resume`, then writes live frames.
    private func serve(after resume: Int64?, writer: inout any ResponseBodyWriter) async throws {
        guard let queue = connect() else { return try await writer.finish(nil) }
        defer { disconnect(queue) }
        try await writer.write(EventFrame.reconnectDelay.bytes)
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                // Registered before this first read: every commit after `position` reaches the queue or the replay.
                var position = try store.lastSequence()
                if let resume { position = try await replay(after: resume, writer: &writer) }
                while !queue.startLive(after: position) {
                    // The queue overflowed while the log was replayed: read on from the log, which has it all.
                    position = try await replay(after: position, writer: &writer)
                }
                while let batch = await queue.next() {
                    try await write(batch, to: &writer)
                }
            } onCancel: {
                queue.finish()
            }
        } onGracefulShutdown: {
            queue.finish()
        }
        try await writer.finish(nil)
    }

    /// Writes the commits logged after `start` (a resync instead, when the log no longer holds them or `start` is
    /// beyond its end); returns the position the client now stands at.
    private func replay(after start: Int64, writer: inout any ResponseBodyWriter) async throws -> Int64 {
        let last = try store.lastSequence()
        if start > last { return try await resync(at: last, writer: &writer) }
        var encoder = FrameEncoder(filter: options.filter)
        var previous: Commit?
        while true {
            let page = try previous.map { try store.commits(following: $0, limit: 256) } ?? store.commits(after: start, limit: 256)
            guard let end = page.last else {
                // Nothing after `start`, though the log had reached `last`: pruned in between.
                if previous == nil, start < last { return try await resync(at: try store.lastSequence(), writer: &writer) }
                return previous?.sequence ?? start
            }
            let from = previous?.sequence ?? start
            if let first = page.first, first.piece.index == 0, first.sequence > from + 1 {
                return try await resync(at: try store.lastSequence(), writer: &writer)
            }
            let frames = page.compactMap { encoder.frame(for: $0, live: false) }
            if !frames.isEmpty {
                try await writer.write(contentsOf: frames.map(\.bytes))
                count(frames)
            }
            previous = end
        }
    }

    /// Tells the client to refetch because its resume point is gone (or beyond the end), at `position`: the
    /// last sequence, which the stream continues after.
    private func resync(at position: Int64, writer: inout any ResponseBodyWriter) async throws -> Int64 {
        let frame = EventFrame.resync(.retention, at: position)
        try await writer.write(frame.bytes)
        count([frame])
        return position
    }

    /// Writes a batch of live frames in one write: a resync first when the queue overflowed.
    private func write(_ batch: ClientQueue.Batch, to writer: inout any ResponseBodyWriter) async throws {
        var frames = batch.frames
        if let mark = batch.overflowedAt { frames.insert(.resync(.overflow, at: mark), at: 0) }
        try await writer.write(contentsOf: frames.map(\.bytes))
        count(frames)
        let now = Date()
        for frame in frames {
            guard let committedAt = frame.committedAt else { continue }
            metrics.latency.recordNanoseconds(max(0, Int64(now.timeIntervalSince(committedAt) * 1e9)))
        }
    }

    /// Counts frames written: events delivered (heartbeats are not events) and resyncs by reason.
    private func count(_ frames: [EventFrame]) {
        let events = frames.count { $0.sequence != nil }
        if events > 0 { metrics.eventsDelivered.increment(by: Int64(events)) }
        for frame in frames {
            if let reason = frame.resync { metrics.resync(reason) }
        }
    }
}
