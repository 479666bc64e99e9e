/// The engine behind a ``RecordStore``, as the protocol's members reach it. Its members are the library's own: a
/// store's engine API stays out of the public surface, and the protocol needs no requirement per engine capability.
public struct StoreEngineHandle<Transaction: StoreTransaction>: Sendable {
    /// The engine: the store itself.
    package let engine: any RecordEngine<Transaction>

    /// The handle of `engine`.
    package init(_ engine: any RecordEngine<Transaction>) {
        self.engine = engine
    }
}
