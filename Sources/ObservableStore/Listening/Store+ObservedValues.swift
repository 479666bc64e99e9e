import Foundation
import ObservableStoreCore

// Observed values of a query on SQLite: most commits are evaluated against the held result (``ObservedQueryState``),
// without reading the query again.
extension Store {
    /// `query` kept current by an ``ObservedQueryState``: the engine's side of the core's `values(of:)`.
    package func observation<R: Record>(of query: Query<R>) -> QueryObservation<Transaction, R> {
        observation(of: query, state: ObservedQueryState(query))
    }

    /// `query` observed through `state` (tests pass theirs to count its reads).
    func observeQuery<R: Record>(
        _ query: Query<R>, state: ObservedQueryState<R>, isSame: @escaping @Sendable ([R], [R]) -> Bool
    ) throws -> ObservedValues<[R]> {
        try observe(observation(of: query, state: state), isSame: isSame)
    }

    private func observation<R: Record>(of query: Query<R>, state: ObservedQueryState<R>) -> QueryObservation<Transaction, R> {
        QueryObservation(fetch: { tx in try state.read(in: tx) }, apply: { commit in state.step(for: commit) })
    }
}
