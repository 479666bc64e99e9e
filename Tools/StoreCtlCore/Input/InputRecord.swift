import ObservableStore

/// One record read from the input: the columns it names (indexes into ``TableInfo/columns``, in input order)
/// and their values in the same order. Readers reuse one record, so reading allocates no arrays per record.
struct InputRecord {
    /// The input line the record starts on (1-based).
    var line = 0
    /// The record's columns, as indexes into the table's columns, in the order of the input.
    var columns: [Int] = []
    /// The value of each of ``columns``.
    var values: [DatabaseValue] = []

    /// Empties the record for the next one, which starts on `line`.
    mutating func start(line: Int) {
        self.line = line
        columns.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }
}

/// Reads records one at a time from an ``InputBuffer``.
protocol RecordReader: AnyObject {
    /// Reads the next record into `record`; false at the end of the input. Bad input throws
    /// ``/ObservableStoreCore/StoreError/Code/invalidInput`` naming the line (and column for syntax errors).
    func next(into record: inout InputRecord) throws -> Bool
}
