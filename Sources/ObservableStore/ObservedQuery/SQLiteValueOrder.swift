import Foundation
import ObservableStoreCore

/// How SQLite orders two values of a column (<https://www.sqlite.org/datatype3.html#comparisons>): NULL
/// before numbers, numbers (integer and real compared by value) before text, text before blobs; text by
/// the column's collating sequence, blobs by `memcmp`.
enum SQLiteValueOrder {
    /// The order of `left` and `right` (negative, zero, positive), or nil when it cannot be told here for
    /// certain: text under a collation other than `BINARY`, or a NaN (SQLite binds it as NULL).
    static func compare(_ left: DatabaseValue, _ right: DatabaseValue, binaryText: Bool) -> Int? {
        if case .real(let value) = left, value.isNaN { return nil }
        if case .real(let value) = right, value.isNaN { return nil }
        let (leftRank, rightRank) = (rank(left), rank(right))
        if leftRank != rightRank { return leftRank < rightRank ? -1 : 1 }
        switch (left, right) {
        case (.null, .null): return 0
        case (.integer(let a), .integer(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.real(let a), .real(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.integer(let a), .real(let b)): return compare(a, b)
        case (.real(let a), .integer(let b)): return -compare(b, a)
        case (.text(let a), .text(let b)):
            guard binaryText else { return nil }
            return ByteOrder.compare(a, b)
        case (.blob(let a), .blob(let b)): return ByteOrder.compare(a, b)
        default: return nil
        }
    }

    /// 0 NULL, 1 number, 2 text, 3 blob.
    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    /// An integer and a real compared exactly, as SQLite does (no rounding of large integers).
    private static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = Int64(real.rounded(.down))
        if integer != floor { return integer < floor ? -1 : 1 }
        return real > Double(floor) ? -1 : 0
    }
}
