import ObservableStoreCore
import StoreSQLite

/// What an observed query must know of a column to compare its values in memory as SQLite does.
struct ColumnTraits: Equatable {
    /// The column's affinity.
    var affinity: ColumnAffinity
    /// Whether text compares byte by byte (the `BINARY` collation); other collations are not modelled.
    var hasBinaryCollation: Bool

    /// The traits of a column declared as `metadata` says.
    init(_ metadata: ColumnMetadata) {
        affinity = ColumnAffinity(declaredType: metadata.declaredType)
        hasBinaryCollation = metadata.collation.uppercased() == "BINARY"
    }
}

extension SQLiteTransaction {
    /// The traits of `columns` of `table`, read from the schema this transaction sees; a column the table
    /// does not have is left out (conditions on it are then never evaluated in memory).
    func columnTraits(table: String, columns: some Sequence<String>) -> [String: ColumnTraits] {
        var traits: [String: ColumnTraits] = [:]
        for column in columns where traits[column] == nil {
            if let metadata = connection.columnMetadata(table: table, column: column) {
                traits[column] = ColumnTraits(metadata)
            }
        }
        return traits
    }
}
