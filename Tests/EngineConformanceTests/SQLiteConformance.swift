import ObservableStore

// The SQLite engine's types conform with no body: the conformance protocols are its public API.
extension Store: ConformanceStore {}
extension Repository: ConformanceRepository {}

// Swift cannot infer an associated type from a generic witness (`repository<R>(_:origin:) -> Repository<R>`), so the
// engine's repository type is named here, for the record type the cases use.
extension Store {
    /// The repository the conformance cases use.
    typealias NodeRepository = Repository<NodeVO>
}
