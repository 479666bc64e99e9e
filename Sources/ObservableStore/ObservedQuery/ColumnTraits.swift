import ObservableStoreCore
import StoreSQLite

/// What an observed query must know of a column to compare its values in memory as SQLite does.
struct ColumnTraits: ColumnComparator, Equatable {
    /// The column's affinity.
    var affinity: ColumnAffinity
    /// Whether text compares byte by byte (the `BINARY` collation); other collations are not modelled.
    var hasBinaryCollation: Bool

    /// The traits of a column declared as `metadata` says.
    init(_ metadata: ColumnMetadata) {
        affinity = ColumnAffinity(declaredType: metadata.declaredType)
        hasBinaryCollation = metadata.collation.uppercased() == "BINARY"
    }

    /// `value` with the column's affinity applied.
    func comparable(_ value: DatabaseValue) -> DatabaseValue? {
        affinity.applied(to: value)
    }

    /// SQLite's order of two values of the column (``SQLiteValueOrder``).
    func order(_ left: DatabaseValue, _ right: DatabaseValue) -> Int? {
        SQLiteValueOrder.compare(left, right, binaryText: hasBinaryCollation)
    }
}

extension SQLiteTransaction {
    /// The traits of `columns` of `table`, read from the schema this transaction sees; a column the table
    /// does not have is left out (conditions on it are then never evaluated in memory).
    func columnTraits(table: String, columns: some Sequence<String>) -> [String: any ColumnComparator] {
        var traits: [String: any ColumnComparator] = [:]
        for column in columns where traits[column] == nil {
            if let metadata = connection.columnMetadata(table: table, column: column) {
                traits[column] = ColumnTraits(metadata)
            }
        }
        return traits
    }
}
