/// A ``RecordQuery``'s filters and order evaluated on rows in memory, with the engine's comparison rules for each
/// column (``ColumnComparator``). Every answer is certain or nil: nil means "ask the database", never a guess.
package struct QueryEvaluator<R: Record> {
    /// The filters, or nil when one of them is SQL only the database evaluates (`filter(sql:)`, keyset paging).
    package let predicates: [QueryPredicate]?
    /// The order columns then the primary key, each with its direction.
    package let orderings: [(column: String, descending: Bool)]
    /// How the database compares the values of the columns the filters and the order read; a column left out is
    /// never judged in memory.
    package let comparators: [String: any ColumnComparator]

    /// The columns whose comparators `query` needs.
    package static func columns(of query: RecordQuery<R>) -> Set<String> {
        Set(query.conditions.compactMap { $0.predicate?.column } + query.effectiveOrderings.map(\.column))
    }

    /// `query`'s filters as predicates, or nil when one of them is SQL only the database evaluates.
    package static func predicates(of query: RecordQuery<R>) -> [QueryPredicate]? {
        let typed = query.conditions.compactMap(\.predicate)
        return typed.count == query.conditions.count && query.afterRecord == nil ? typed : nil
    }

    /// An evaluator of `query` with the `comparators` of the columns it reads.
    package init(_ query: RecordQuery<R>, comparators: [String: any ColumnComparator]) {
        predicates = Self.predicates(of: query)
        orderings = query.effectiveOrderings.map { ($0.column, $0.descending) }
        self.comparators = comparators
    }

    /// Whether the stored row `row` passes every filter; nil when that cannot be told in memory.
    package func matches(_ row: Row) -> Bool? {
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

    /// The row's values of the order columns and the primary key, as the database compares them: `value` gives a
    /// column's value, `isStored` says whether it is already stored (else it is made comparable as the column's
    /// comparator says). Nil when a value is missing or would be converted in a way not modelled here.
    package func sortKey(isStored: Bool, _ value: (String) -> DatabaseValue?) -> [DatabaseValue]? {
        var key: [DatabaseValue] = []
        key.reserveCapacity(orderings.count)
        for ordering in orderings {
            guard let raw = value(ordering.column), let comparator = comparators[ordering.column] else { return nil }
            guard let comparable = isStored ? raw : comparator.comparable(raw) else { return nil }
            key.append(comparable)
        }
        return key
    }

    /// The order of two sort keys under the query's `ORDER BY` (negative: `left` first), or nil when unsure.
    package func compare(_ left: [DatabaseValue], _ right: [DatabaseValue]) -> Int? {
        for (index, ordering) in orderings.enumerated() {
            guard let order = comparators[ordering.column]?.order(left[index], right[index]) else { return nil }
            if order != 0 { return ordering.descending ? -order : order }
        }
        return 0
    }

    /// Whether two sort keys are the same row's (the primary key is part of them); nil when unsure.
    package func isSameKey(_ left: [DatabaseValue], _ right: [DatabaseValue]) -> Bool? {
        var isCertain = true
        for (index, ordering) in orderings.enumerated() {
            switch sameValue(left[index], right[index], comparators[ordering.column]) {
            case false?: return false
            case nil: isCertain = false
            case true?: continue
            }
        }
        return isCertain ? true : nil
    }

    /// Two values of one column in a sort key (NULL is the same as NULL there); nil when unsure.
    private func sameValue(_ left: DatabaseValue, _ right: DatabaseValue, _ comparator: (any ColumnComparator)?) -> Bool? {
        guard let comparator else { return nil }
        if left.isNull || right.isNull { return left.isNull && right.isNull }
        return comparator.isEqual(left, right)
    }

    /// One filter on one stored row.
    private func evaluate(_ predicate: QueryPredicate, on row: Row) -> Bool? {
        switch predicate {
        case .never:
            return false
        case .isNull(let column):
            return row[column].map(\.isNull)
        case .compare(let column, let comparison, let bound):
            guard let stored = row[column], let comparator = comparators[column] else { return nil }
            return compare(stored, comparison, bound, comparator)
        case .oneOf(let column, let values):
            // A value the database would convert (or refuse) leaves the whole list to it.
            guard let stored = row[column], let comparator = comparators[column],
                values.allSatisfy({ comparator.comparable($0) != nil })
            else { return nil }
            var isCertain = true
            for value in values {
                switch compare(stored, .equal, value, comparator) {
                case true?: return true
                case nil: isCertain = false
                case false?: continue
                }
            }
            return isCertain ? false : nil
        }
    }

    /// `stored <comparison> bound` for a column compared by `comparator`: the bound value is made comparable with the
    /// column, NULL on either side fails the filter, `LIKE` and `GLOB` are left to the database.
    private func compare(
        _ stored: DatabaseValue, _ comparison: QueryComparison, _ bound: DatabaseValue, _ comparator: any ColumnComparator
    ) -> Bool? {
        if comparison == .like || comparison == .glob { return nil }
        guard let bound = comparator.comparable(bound) else { return nil }
        if stored.isNull || bound.isNull { return false }
        switch comparison {
        case .equal: return comparator.isEqual(stored, bound)
        case .notEqual: return comparator.isEqual(stored, bound).map { !$0 }
        case .like, .glob: return nil
        default: break
        }
        guard let order = comparator.order(stored, bound) else { return nil }
        switch comparison {
        case .lessThan: return order < 0
        case .lessThanOrEqual: return order <= 0
        case .greaterThan: return order > 0
        case .greaterThanOrEqual: return order >= 0
        case .equal, .notEqual, .like, .glob: return nil
        }
    }
}
