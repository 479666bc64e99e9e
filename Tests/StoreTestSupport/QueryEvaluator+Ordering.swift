import ObservableStoreCore

extension QueryEvaluator {
    /// The `id` column of `rows` in the order this evaluator's query sorts them, or nil when a row's sort key or a
    /// comparison of two of them cannot be told in memory: what a test compares with the database's order.
    package func orderedIDs(of rows: [Row]) -> [Int64]? {
        let keys = rows.map { row in sortKey(isStored: true) { row[$0] } }
        guard keys.allSatisfy({ $0 != nil }) else { return nil }
        var indices = Array(rows.indices)
        var isCertain = true
        indices.sort { a, b in
            guard let order = compare(keys[a]!, keys[b]!) else {
                isCertain = false
                return a < b
            }
            return order < 0
        }
        guard isCertain else { return nil }
        return indices.map { rows[$0].value("id", as: Int64.self) ?? -1 }
    }
}
