import Foundation

/// The calling thread's identity, for code that must know which thread it runs on (a writer's owner, an executor's
/// thread).
package enum ThreadIdentity {
    /// The calling thread's `pthread_self()`, as a number.
    package static var current: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
