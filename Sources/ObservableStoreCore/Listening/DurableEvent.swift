/// What a durable listener receives.
public enum DurableEvent: Sendable {
    /// A commit matching the filter, not yet acknowledged.
    case commit(DurableCommit)
    /// Read the current data again: the cursor expired (``ResyncReason/cursorExpired(missed:)``: the
    /// commits after it left the change log), or a program that does not log its changes changed the
    /// store (``ResyncReason/externalChange``). Delivered once, in its place in the order.
    case resync(ResyncReason)
}
