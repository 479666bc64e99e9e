import ObservableStoreCore

/// A ``/ObservableStoreCore/RecordQuery``'s filters and order evaluated on rows in memory, with SQLite's
/// comparison rules (affinity, storage-class order, `BINARY` text). Every answer is certain or nil: nil
/// means "ask the database", never a guess.
struct QueryEvaluator<R: Record> {
    /// The filters, or nil when one of them is SQL only this engine's database evaluates (`filter(sql:)`,
    /// keyset paging).
    let predicates: [QueryPredicate]?
    /// The order columns then the primary key, each with its direction.
    let orderings: [(column: String, descending: Bool)]
    /// The traits of the columns the filters and the order read.
    let traits: [String: ColumnTraits]

    /// The columns whose traits `query` needs.
    static func columns(of query: RecordQuery<R>) -> Set<String> {
        Set(query.conditions.compactMap { $0.predicate?.column } + query.effectiveOrderings.map(\.column))
    }

    /// `query`'s filters as predicates, or nil when one of them is SQL only the database evaluates.
    static func predicates(of query: RecordQuery<R>) -> [QueryPredicate]? {
        let typed = query.conditions.compactMap(\.predicate)
        return typed.count == query.conditions.count && query.afterRecord == nil ? typed : nil
    }

    /// An evaluator of `query` with the `traits` of the columns it reads.
    init(_ query: RecordQuery<R>, traits: [String: ColumnTraits]) {
        predicates = Self.predicates(of: query)
        orderings = query.effectiveOrderings.map { ($0.column, $0.descending) }
        self.traits = traits
    }

    /// Whether the stored row `row` passes every filter; nil when that cannot be told in memory.
    func matches(_ row: Row) -> Bool? {
        guard let predicates else { return nil }
        var isCertain = true
        for predicate in predicates {
            switch evaluate(predicate, on: row) {
            case false?: return false
            case nil: isCertain = false
            case true?: continue
            }
        }
        return isCertain ? true : nil
    }

    /// The row's values of the order columns and the primary key, as SQLite compares them: `value` gives a
    /// column's value, `isStored` says whether it is already stored (else the column's affinity is applied).
    /// Nil when a value is missing or would be converted in a way not modelled here.
    func sortKey(isStored: Bool, _ value: (String) -> DatabaseValue?) -> [DatabaseValue]? {
        var key: [DatabaseValue] = []
        key.reserveCapacity(orderings.count)
        for ordering in orderings {
            guard let raw = value(ordering.column), let traits = traits[ordering.column] else { return nil }
            guard let comparable = isStored ? raw : traits.affinity.applied(to: raw) else { return nil }
            key.append(comparable)
        }
        return key
    }

    /// The order of two sort keys under the query's `ORDER BY` (negative: `left` first), or nil when unsure.
    func compare(_ left: [DatabaseValue], _ right: [DatabaseValue]) -> Int? {
        for (index, ordering) in orderings.enumerated() {
            let binary = traits[ordering.column]?.hasBinaryCollation ?? false
            guard let order = SQLiteValueOrder.compare(left[index], right[index], binaryText: binary) else { return nil }
            if order != 0 { return ordering.descending ? -order : order }
        }
        return 0
    }

    /// One filter on one stored row.
    private func evaluate(_ predicate: QueryPredicate, on row: Row) -> Bool? {
        switch predicate {
        case .never:
            return false
        case .isNull(let column):
            return row[column].map(\.isNull)
        case .compare(let column, let comparison, let bound):
            guard let stored = row[column], let traits = traits[column] else { return nil }
            return compare(stored, comparison, bound, traits)
        case .oneOf(let column, let values):
            guard let stored = row[column], let traits = traits[column] else { return nil }
            var isCertain = true
            for value in values {
                switch compare(stored, .equal, value, traits) {
                case true?: return true
                case nil: isCertain = false
                case false?: continue
                }
            }
            return isCertain ? false : nil
        }
    }

    /// `stored <comparison> bound` for a column with `traits`: the column's affinity applies to the bound
    /// value, NULL on either side fails the filter, `LIKE` and `GLOB` are left to the database.
    private func compare(
        _ stored: DatabaseValue, _ comparison: QueryComparison, _ bound: DatabaseValue, _ traits: ColumnTraits
    ) -> Bool? {
        if comparison == .like || comparison == .glob { return nil }
        guard let bound = traits.affinity.applied(to: bound) else { return nil }
        if stored.isNull || bound.isNull { return false }
        guard let order = SQLiteValueOrder.compare(stored, bound, binaryText: traits.hasBinaryCollation) else {
            return nil
        }
        switch comparison {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .lessThan: return order < 0
        case .lessThanOrEqual: return order <= 0
        case .greaterThan: return order > 0
        case .greaterThanOrEqual: return order >= 0
        case .like, .glob: return nil
        }
    }
}
