import Foundation
import ObservableStoreCore

// Observed values on SQLite: most commits are evaluated against a query's held result (``ObservedQueryState``),
// without reading the query again; a tracked read runs again only for commits to what it read (``ReadRegion``).
extension SQLiteStore {
    /// `query` kept current by an ``ObservedQueryState``: the engine's side of the core's `values(of:)`.
    package func observation<R: Record>(of query: RecordQuery<R>) -> QueryObservation<SQLiteTransaction, R> {
        observation(of: query, state: ObservedQueryState(query))
    }

    /// Runs `read` and records the tables and columns its statements read (SQLite's authorizer reports them): the
    /// engine's side of the core's `observe(tracking:)`, which runs it again only for a commit that changes them.
    package func tracking<Value>(
        _ read: (SQLiteTransaction) throws -> Value, in snapshot: SQLiteTransaction
    ) throws -> (value: Value, mayChange: @Sendable (Commit) -> Bool) {
        let (value, region) = try ReadRegion.recording(in: snapshot) { try read(snapshot) }
        return (value, { commit in region.isChanged(by: commit) })
    }

    /// `query` observed through `state` (tests pass theirs to count its reads).
    func observeQuery<R: Record>(
        _ query: RecordQuery<R>, state: ObservedQueryState<R>, isSame: @escaping @Sendable ([R], [R]) -> Bool
    ) throws -> ObservedValues<[R]> {
        try observe(observation(of: query, state: state), isSame: isSame)
    }

    private func observation<R: Record>(of query: RecordQuery<R>, state: ObservedQueryState<R>) -> QueryObservation<SQLiteTransaction, R> {
        QueryObservation(fetch: { tx in try state.read(in: tx) }, apply: { commit in state.step(for: commit) })
    }
}
