/// Work queued for a thread of the store, on behalf of a suspended `async` caller: ``run(with:)`` runs it there and
/// resumes the caller, ``fail(_:)`` resumes it with an error without running it.
protocol QueuedWork<Resource>: AnyObject, Sendable {
    /// What the work runs with: a reader connection, or the writer.
    associatedtype Resource

    /// Runs the work with `resource` and resumes its caller with the outcome; does nothing when it was cancelled.
    func run(with resource: Resource)

    /// Resumes the caller with `error`, without running the work; does nothing when it already ended.
    func fail(_ error: any Error)
}
