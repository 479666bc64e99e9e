/// ``ChangeFilter`` in a record type's terms: its table, its typed keys, its typed columns.
extension ChangeFilter {
    /// Changes to `R`'s table; only rows with one of `keys` when given, only updates that changed one of
    /// `columns` when given (inserts and deletes always match).
    ///
    /// For example:
    ///
    /// ```swift
    /// // Moves of node 7, made by anyone but this view.
    /// let moves = ChangeFilter(NodeVO.self, keys: [7], columns: [.x, .y], excludedOrigins: ["canvas"])
    /// ```
    public init<R: Record>(
        _ type: R.Type, keys: [R.Key]? = nil, columns: [R.Columns]? = nil, origins: Set<String>? = nil,
        excludedOrigins: Set<String> = []
    ) {
        self.init(
            tables: [R.tableName], keys: keys.map { Set($0.map(\.databaseValue)) },
            columns: columns.map { Set($0.map(\.stringValue)) }, origins: origins, excludedOrigins: excludedOrigins)
    }
}
