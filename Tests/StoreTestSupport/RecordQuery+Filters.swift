import ObservableStoreCore

extension RecordQuery {
    /// One query per filter on `column`: IS NULL, each list of `lists`, and each comparison (`LIKE` included) with each
    /// of `bounds`: what a test of the in-memory evaluation checks against the database.
    package static func everyFilter(on column: String, bounds: [DatabaseValue], lists: [[DatabaseValue]]) -> [RecordQuery] {
        var queries = [RecordQuery().filter(column, equals: DatabaseValue.null)]
        queries += lists.map { RecordQuery().filter(column, in: $0) }
        let comparisons: [QueryComparison] = [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .like]
        for bound in bounds {
            queries += comparisons.map { RecordQuery().filter(column, $0, bound) }
        }
        return queries
    }
}
