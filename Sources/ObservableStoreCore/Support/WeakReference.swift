/// A weak reference that can be captured by a `@Sendable` closure (a listener that must not keep its
/// owner alive).
package final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    /// The object, while something else keeps it alive.
    package weak let object: Object?

    /// A weak reference to `object`.
    package init(_ object: Object) { self.object = object }
}
