#if PostgreSQL
import ObservableStoreCore

/// How PostgreSQL compares the values of one column, for the types whose comparisons are modelled in memory: integers
/// (`smallint`, `integer`, `bigint`), `double precision`, `boolean`, `bytea`, and `text` / `character varying` under a
/// deterministic collation. Any other type (`numeric`, `real`, dates, `uuid`, `jsonb`, `character`…) has no
/// comparator: conditions and orders on it are left to the database.
///
/// - NULL sorts after every value in ascending order (PostgreSQL's `NULLS LAST`), before them descending.
/// - A value of another kind than the column's is not modelled (PostgreSQL would cast one side), except an integer
///   meeting a `double precision` column within ±2⁵³, where the cast is exact.
/// - NaN is left to the database (PostgreSQL sorts it above every number and equal to itself).
/// - Text is equal when its bytes are; it is ordered in memory only under the `C` or `POSIX` collation, named or as the
///   database's default with the libc provider (a locale's order, `C.UTF-8` or ICU included, is the database's to tell).
struct PostgresColumnComparator: ColumnComparator {
    /// The column's type, as far as comparing needs it.
    enum Kind: Equatable {
        case integer, double, boolean, bytes
        case text(isBytewise: Bool)
    }

    let kind: Kind

    /// The comparator of a column of type `type` (as `format_type` names it) with `collation`; nil when its
    /// comparisons are not modelled.
    init?(type: String, collation: TableColumns.Collation?) {
        switch type {
        case "smallint", "integer", "bigint": kind = .integer
        case "double precision": kind = .double
        case "boolean": kind = .boolean
        case "bytea": kind = .bytes
        case "text", "character varying":
            guard let collation, collation.isDeterministic else { return nil }
            kind = .text(isBytewise: collation.isBytewise)
        default: return nil
        }
    }

    /// `value` unchanged when it is of the column's kind (or NULL), an integer as a double for a `double precision`
    /// column when exact; nil otherwise.
    func comparable(_ value: DatabaseValue) -> DatabaseValue? {
        switch (kind, value) {
        case (_, .null), (.integer, .integer), (.double, .real), (.bytes, .blob), (.text, .text): value
        case (.double, .integer(let integer)) where integer.magnitude <= 1 << 53: .real(Double(integer))
        case (.boolean, .integer(let flag)) where flag == 0 || flag == 1: value
        default: nil
        }
    }

    /// PostgreSQL's ascending order of two values of the column; nil when unsure.
    func order(_ left: DatabaseValue, _ right: DatabaseValue) -> Int? {
        switch (left, right) {
        case (.null, .null): return 0
        case (.null, _): return 1
        case (_, .null): return -1
        case (.integer(let a), .integer(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.real(let a), .real(let b)):
            if a.isNaN || b.isNaN { return nil }
            return a < b ? -1 : (a == b ? 0 : 1)
        case (.blob(let a), .blob(let b)): return ByteOrder.compare(a, b)
        case (.text(let a), .text(let b)):
            if case .text(isBytewise: true) = kind { return ByteOrder.compare(a, b) }
            return a.utf8.elementsEqual(b.utf8) ? 0 : nil
        default: return nil
        }
    }

    /// Equal when the bytes are, for text under any deterministic collation; as the order says otherwise.
    func isEqual(_ left: DatabaseValue, _ right: DatabaseValue) -> Bool? {
        if case .text = kind, case .text(let a) = left, case .text(let b) = right { return a.utf8.elementsEqual(b.utf8) }
        return order(left, right).map { $0 == 0 }
    }
}
#endif
