import Synchronization

/// What an observed ``RecordQuery`` keeps between commits: its last result and how to evaluate rows against it, so
/// that a commit whose rows cannot change the result reads nothing, and one whose effect is certain updates the
/// result in memory (docs/OBSERVATION.md, "Observed values"). Both engines observe queries through it; each supplies
/// how its database compares a column's values (``RecordEngine/columnComparators(of:columns:in:)``).
package final class ObservedQueryState<Snapshot: StoreTransaction, R: Record>: Sendable {
    /// Reads the comparators of some columns of the query's table in a snapshot.
    package typealias ComparatorReader = @Sendable (String, Set<String>, Snapshot) throws -> [String: any ColumnComparator]

    private struct State {
        var evaluator: QueryEvaluator<R>?
        var held: HeldQueryResult<R>?
    }

    private let query: RecordQuery<R>
    private let readComparators: ComparatorReader
    private let state = Mutex(State())
    /// Whether the query's filters can be evaluated in memory at all (no `filter(sql:)`, no keyset paging).
    private let isEvaluable: Bool
    private let reads = Atomic<Int>(0)

    /// How many reads of the query have fetched their rows (the first value included). Counted once the rows are
    /// fetched: a commit made after the count grew is not in that read's snapshot.
    package var readCount: Int { reads.load(ordering: .relaxed) }

    /// The state of an observation of `query`, whose columns' comparators `readComparators` reads.
    package init(_ query: RecordQuery<R>, comparators readComparators: @escaping ComparatorReader) {
        self.query = query
        self.readComparators = readComparators
        isEvaluable = QueryEvaluator.predicates(of: query) != nil
    }

    /// Reads the query in `tx` and holds the result, with the comparators of its columns as `tx` sees the schema.
    package func read(in tx: Snapshot) throws -> [R] {
        let records = try tx.fetchAll(query)
        reads.add(1, ordering: .relaxed)
        guard isEvaluable else { return records }
        let comparators = try readComparators(R.tableName, QueryEvaluator<R>.columns(of: query), tx)
        state.withLock { state in
            state.evaluator = QueryEvaluator(query, comparators: comparators)
            state.held = HeldQueryResult(records, of: query)
        }
        return records
    }

    /// What `commit` (already filtered to the query's table) does to the held result.
    package func step(for commit: Commit) -> ValueBinding.Step<[R]> {
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
