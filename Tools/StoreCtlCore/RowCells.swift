import Foundation
import ObservableStore

/// One row as a ``RowPrinter`` reads it: its column names and each cell's storage class, number or bytes.
/// A statement's current row (``/ObservableStore/RowCursor``, read in place) or values in memory (``ValueRow``).
protocol RowCells {
    /// The column names, in order.
    var columnNames: [String] { get }
    /// The number of cells.
    var cellCount: Int { get }
    /// The storage class of cell `index`.
    func storageClass(at index: Int) -> StorageClass
    /// Cell `index` when it is an INTEGER.
    func int64(at index: Int) -> Int64
    /// Cell `index` when it is a REAL.
    func double(at index: Int) -> Double
    /// Calls `body` with the bytes of cell `index` when it is TEXT (UTF-8, not checked) or a BLOB.
    func withBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    /// Cell `index` as a value.
    func value(at index: Int) -> DatabaseValue
}

extension RowCursor: RowCells {
    var cellCount: Int { columnCount }
}

/// Values in memory as ``RowCells`` (the rows of `tables`, `info`, `schema`…).
struct ValueRow: RowCells {
    let columnNames: [String]
    let values: [DatabaseValue]

    var cellCount: Int { values.count }

    func storageClass(at index: Int) -> StorageClass {
        switch values[index] {
        case .null: .null
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    func int64(at index: Int) -> Int64 {
        if case .integer(let integer) = values[index] { return integer }
        return 0
    }

    func double(at index: Int) -> Double {
        if case .real(let real) = values[index] { return real }
        return 0
    }

    func withBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch values[index] {
        case .text(var text): try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        case .blob(let data): try data.withUnsafeBytes(body)
        default: try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    func value(at index: Int) -> DatabaseValue { values[index] }
}
