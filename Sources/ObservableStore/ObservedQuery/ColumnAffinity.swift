import ObservableStoreCore

/// A column's type affinity, as SQLite derives it from the declared type
/// (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>), and what it does to a value
/// compared with the column.
enum ColumnAffinity: Equatable {
    case integer, text, blob, real, numeric
    /// A declared type whose comparisons this module does not model (`ANY`): nothing is evaluated in memory.
    case unmodelled

    /// The affinity of a column declared with `declaredType`.
    init(declaredType: String) {
        let type = declaredType.uppercased()
        if type == "ANY" {
            self = .unmodelled
        } else if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// `value` as SQLite sees it when it is compared with (or stored in) a column of this affinity, or nil
    /// when SQLite would convert it and this module does not model the conversion (text that may look like a
    /// number meeting a numeric column, a number meeting a text column). Unchanged values are certain.
    func applied(to value: DatabaseValue) -> DatabaseValue? {
        switch (self, value) {
        case (.unmodelled, _): nil
        case (_, .null): value
        case (.integer, .text), (.real, .text), (.numeric, .text): nil
        case (.text, .integer), (.text, .real): nil
        default: value
        }
    }
}
