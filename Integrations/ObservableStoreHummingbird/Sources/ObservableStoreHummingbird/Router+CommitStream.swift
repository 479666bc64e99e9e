import Hummingbird

extension Router {
    /// Serves `stream` at `GET path` as Server-Sent Events (see ``CommitStream/response(to:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// router.addCommitStream("events", try service.commitStream())
    /// ```
    @discardableResult
    public func addCommitStream(_ path: RouterPath, _ stream: CommitStream) -> Self {
        get(path) { request, _ in stream.response(to: request) }
        return self
    }
}
