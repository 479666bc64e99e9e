/// The records an observed query holds, and how a commit changes them without reading the database.
///
/// Invariant: `records` is the query's result at the last commit applied (or read). When the result may
/// not hold every matching row (a `limit` was reached), every matching row it lacks sorts after
/// `boundary`, the sort key of its last record.
struct HeldQueryResult<R: Record> {
    /// What a commit did to the held records.
    enum Outcome {
        /// Nothing: no changed row matched the query, before or after.
        case unchanged
        /// The commit's rows changed the result to this, computed in memory.
        case changed([R])
        /// Only the database can tell: read the query again.
        case readAgain
    }

    private(set) var records: [R]
    /// The sort key of each record (computed when a commit first needs them).
    private var sortKeys: [[DatabaseValue]]?
    /// Whether `records` holds every row matching the filters (no limit, or fewer rows than the limit).
    private var isComplete: Bool
    /// When not complete: every matching row not held sorts after this key.
    private var boundary: [DatabaseValue]?
    private let limit: Int?
    /// Whether a relevant change may be applied in memory: an explicit order, no offset, every column fetched.
    private let isApplicable: Bool

    /// The result `records` of `query`, just read.
    init(_ records: [R], of query: RecordQuery<R>) {
        self.records = records
        limit = query.limitCount
        isComplete = query.limitCount.map { records.count < $0 } ?? true
        // A record type that selects some columns only would decode differently from a full row image.
        isApplicable = !query.orderings.isEmpty && query.offsetCount == nil && query.afterRecord == nil && R.columns == nil
    }

    /// Applies `commit`'s changes of the query's table, as `evaluator` judges them.
    mutating func apply(_ commit: Commit, with evaluator: QueryEvaluator<R>) -> Outcome {
        if commit.schemaChanged || evaluator.predicates == nil { return .readAgain }
        if limit == 0 { return .unchanged }
        var relevant: [(change: Change, wasIn: Bool, isIn: Bool)] = []
        for change in commit.changes where change.table == R.tableName {
            guard let wasIn = image(change.old, required: change.operation != .insert, evaluator),
                let isIn = image(change.new, required: change.operation != .delete, evaluator)
            else { return .readAgain }
            if wasIn || isIn { relevant.append((change, wasIn, isIn)) }
        }
        if relevant.isEmpty { return .unchanged }
        guard isApplicable, prepareSortKeys(evaluator) else { return .readAgain }
        for (change, wasIn, isIn) in relevant {
            guard apply(change, wasIn: wasIn, isIn: isIn, evaluator) else { return reset() }
        }
        if !isComplete, let limit, records.count < limit { return reset() }
        return .changed(records)
    }

    /// Whether a row image passes the filters: false when there is none and none is expected, nil when unsure.
    private func image(_ row: Row?, required: Bool, _ evaluator: QueryEvaluator<R>) -> Bool? {
        guard let row else { return required ? nil : false }
        return evaluator.matches(row)
    }

    /// Computes the held records' sort keys if not done yet; false when one cannot be told.
    private mutating func prepareSortKeys(_ evaluator: QueryEvaluator<R>) -> Bool {
        if sortKeys != nil { return true }
        var keys: [[DatabaseValue]] = []
        keys.reserveCapacity(records.count)
        for record in records {
            guard let row = try? RowEncoder.encode(record),
                let key = evaluator.sortKey(isStored: false, { row.value(of: $0) })
            else { return false }
            keys.append(key)
        }
        sortKeys = keys
        boundary = isComplete ? nil : keys.last
        return true
    }

    /// One relevant change: removes the row's old version if held, inserts its new one in order if it
    /// belongs. False when the change cannot be applied for certain.
    private mutating func apply(_ change: Change, wasIn: Bool, isIn: Bool, _ evaluator: QueryEvaluator<R>) -> Bool {
        guard var keys = sortKeys else { return false }
        defer { sortKeys = keys }
        if wasIn, let old = change.old {
            guard let oldKey = evaluator.sortKey(isStored: true, { old[$0] }) else { return false }
            var held: Int?
            for (index, key) in keys.enumerated() {
                guard let isSame = evaluator.isSameKey(key, oldKey) else { return false }
                if isSame {
                    held = index
                    break
                }
            }
            if let index = held {
                records.remove(at: index)
                keys.remove(at: index)
            } else if isComplete {
                return false  // a matching row missing from a complete result: the held result is not what we think
            }
        }
        guard isIn, let new = change.new else { return true }
        guard let newKey = evaluator.sortKey(isStored: true, { new[$0] }),
            let record = try? RowReader.decode(R.self, from: new)
        else { return false }
        if !isComplete {
            guard let boundary, let order = evaluator.compare(newKey, boundary) else { return false }
            if order > 0 { return true }  // it sorts among the rows beyond the limit
        }
        var position = keys.endIndex
        for (index, key) in keys.enumerated() {
            guard let order = evaluator.compare(newKey, key) else { return false }
            if order < 0 {
                position = index
                break
            }
        }
        records.insert(record, at: position)
        keys.insert(newKey, at: position)
        if let limit, records.count > limit {
            records.removeLast(records.count - limit)
            keys.removeLast(keys.count - limit)
            isComplete = false
            boundary = keys.last
        }
        return true
    }

    /// Gives up on the held records: the next value is read.
    private mutating func reset() -> Outcome {
        sortKeys = nil
        return .readAgain
    }
}
