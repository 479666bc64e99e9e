import Foundation
import StoreSQLite

/// A record that writes its columns itself, without `Encodable`'s containers: inserts and updates run
/// faster. ``NodeVO`` and ``UserInfo`` conform; types that do not are encoded with `Encodable`. Write the
/// same columns, with the same values, as the type's `Encodable` conformance does.
///
/// For example:
///
/// ```swift
/// extension Note: RowEncodable {
///     func encode(to row: inout RowWriter) {
///         row.encode(id, "id")
///         row.encode(title, "title")
///     }
/// }
/// ```
public protocol RowEncodable {
    /// Writes the record's columns into `row`.
    func encode(to row: inout RowWriter)
}

/// The columns a ``RowEncodable`` record writes, in order.
public struct RowWriter {
    var row = EncodedRow()
    /// When set, the only columns kept; the others are skipped before their value is converted.
    let only: [String]?
    /// The writer's recently formatted dates, when encoding inside a write.
    let timestamps: TimestampCache?
    /// When set, values are bound straight into this statement's parameters, in the order of
    /// ``expectedColumns``, instead of being collected in ``row``.
    private let statement: Statement?
    private let expectedColumns: [String]
    /// The parameters bound so far, when binding straight into ``statement``.
    private(set) var boundCount = 0
    /// Set when the record wrote a column other than the one expected next: the binding is given up.
    private(set) var wroteOtherColumns = false
    /// The first bind that failed, when binding straight into ``statement``.
    private(set) var bindingError: SQLiteError?

    init(capacity: Int, only: [String]? = nil, timestamps: TimestampCache? = nil) {
        self.only = only
        self.timestamps = timestamps
        self.statement = nil
        self.expectedColumns = []
        row.columns.reserveCapacity(capacity)
        row.values.reserveCapacity(capacity)
    }

    /// A writer that binds each value straight into `statement`, whose parameters are `columns` in order.
    /// The caller has started a binding round (`Statement.beginBinding()`).
    init(binding statement: Statement, columns: [String], timestamps: TimestampCache?) {
        self.only = nil
        self.timestamps = timestamps
        self.statement = statement
        self.expectedColumns = columns
    }

    /// Whether every expected column was bound, and nothing else written.
    var boundEveryColumn: Bool { !wroteOtherColumns && bindingError == nil && boundCount == expectedColumns.count }

    /// Writes `value` to `column` (nil is NULL).
    public mutating func encode<Value: DatabaseValueConvertible>(_ value: Value?, _ column: String) {
        if statement != nil { return bind(value?.databaseValue ?? .null, to: column) }
        if let only, !only.contains(column) { return }
        row.columns.append(column)
        row.values.append(value?.databaseValue ?? .null)
    }

    /// Writes the date `value` to `column` (nil is NULL), as its ``DatabaseValueConvertible`` text; a date in
    /// the same millisecond as one just written reuses that text.
    public mutating func encode(_ value: Date?, _ column: String) {
        if statement != nil { return bind(value.map { DatabaseValue.text(text(of: $0)) } ?? .null, to: column) }
        if let only, !only.contains(column) { return }
        row.columns.append(column)
        guard let value else { return row.values.append(.null) }
        row.values.append(.text(text(of: value)))
    }

    private func text(of date: Date) -> String {
        timestamps?.text(for: date) ?? Timestamp.format(date)
    }

    /// Binds `value` to the next parameter, if `column` is the one expected there.
    private mutating func bind(_ value: DatabaseValue, to column: String) {
        guard let statement, !wroteOtherColumns, bindingError == nil else { return }
        guard boundCount < expectedColumns.count, expectedColumns[boundCount] == column else {
            wroteOtherColumns = true
            return
        }
        boundCount += 1
        do throws(SQLiteError) {
            try statement.bindInRound(value, at: Int32(boundCount))
        } catch {
            bindingError = error
        }
    }
}
