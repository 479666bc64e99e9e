import ObservableStoreCore
import Synchronization

/// What an observed ``/ObservableStoreCore/RecordQuery`` keeps between commits: its last result and how to
/// evaluate rows against it, so that a commit whose rows cannot change the result reads nothing, and one
/// whose effect is certain updates the result in memory (docs/OBSERVATION.md, "Observed values").
final class ObservedQueryState<R: Record>: Sendable {
    private struct State {
        var evaluator: QueryEvaluator<R>?
        var held: HeldQueryResult<R>?
    }

    private let query: RecordQuery<R>
    private let state = Mutex(State())
    /// Whether the query's filters can be evaluated in memory at all (no `filter(sql:)`, no keyset paging).
    private let isEvaluable: Bool
    private let reads = Atomic<Int>(0)

    /// How many reads of the query have fetched their rows (the first value included). Counted once the rows are
    /// fetched: a commit made after the count grew is not in that read's snapshot.
    var readCount: Int { reads.load(ordering: .relaxed) }

    /// The state of an observation of `query`.
    init(_ query: RecordQuery<R>) {
        self.query = query
        isEvaluable = QueryEvaluator.predicates(of: query) != nil
    }

    /// Reads the query in `tx` and holds the result, with the traits of its columns as `tx` sees the schema.
    func read(in tx: SQLiteTransaction) throws -> [R] {
        let records = try tx.fetchAll(query)
        reads.add(1, ordering: .relaxed)
        guard isEvaluable else { return records }
        let traits = tx.columnTraits(table: R.tableName, columns: QueryEvaluator<R>.columns(of: query))
        state.withLock { state in
            state.evaluator = QueryEvaluator(query, traits: traits)
            state.held = HeldQueryResult(records, of: query)
        }
        return records
    }

    /// What `commit` (already filtered to the query's table) does to the held result.
    func step(for commit: Commit) -> ValueBinding.Step<[R]> {
        state.withLock { state in
            guard let evaluator = state.evaluator, state.held != nil else { return .refetch }
            switch state.held!.apply(commit, with: evaluator) {
            case .unchanged: return .skip
            case .changed(let records): return .deliver(records)
            case .readAgain:
                state.held = nil
                return .refetch
            }
        }
    }
}
