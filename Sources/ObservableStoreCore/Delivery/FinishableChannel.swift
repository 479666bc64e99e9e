/// The hand-over of an async sequence the store feeds (``EventChannel``, ``LatestValueChannel``): the
/// registry finishes every one of them when the store closes, so no consumer waits forever.
package protocol FinishableChannel: AnyObject, Sendable {
    /// Ends the sequence: the consumer gets what is pending, then the end.
    func finish()
}

extension EventChannel: FinishableChannel {}
extension LatestValueChannel: FinishableChannel {}
