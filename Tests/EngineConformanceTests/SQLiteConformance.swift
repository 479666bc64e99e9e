import ObservableStore

// The SQLite engine's types conform with no body: the conformance protocols are its public API.
extension Store: ConformanceStore {}
extension Transaction: ConformanceTransaction {}
extension Repository: ConformanceRepository {}
extension CommittedWrite: ConformanceCommittedWrite {}

// Swift cannot infer an associated type from a generic witness (`repository<R>(_:origin:) -> Repository<R>`), so the
// two generic engine types are named here, for the record and the value type the cases use.
extension Store {
    /// The repository the conformance cases use.
    typealias NodeRepository = Repository<NodeVO>
    /// What `writeReturningCommit` returns for the cases' writes.
    typealias CommittedVoid = CommittedWrite<Void>
}
