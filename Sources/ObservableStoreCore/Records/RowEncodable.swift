import Foundation

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
///
/// It either collects them (`row`: column names and values), or binds each value straight into a
/// prepared statement's parameters (`binding`, the fast path of repeated inserts and updates).
public struct RowWriter {
    /// Collecting: the columns and values written so far.
    package var row = EncodedRow()
    /// Collecting: when set, the only columns kept; the others are skipped before their value is converted.
    package let only: [String]?
    /// The writer's recently formatted dates, when encoding inside a write.
    package let timestamps: TimestampCache?
    /// Binding: the statement and how far the record got; nil when collecting.
    private var binding: Binding?

    /// Binding straight into a statement: the columns the record must write, where each goes, how far it got.
    private struct Binding {
        let statement: any ParameterSink
        /// The columns the record is expected to write, in order.
        let expectedColumns: [String]
        /// The parameter each of `expectedColumns` binds to, 0 for none; nil when they are 1, 2, 3, ….
        let parameters: [Int32]?
        /// A parameter that must not be NULL (an update's key), 0 for none: NULL there gives the binding up.
        let nonNullParameter: Int32
        /// The columns written so far.
        var writtenCount = 0
        /// Set when the binding is given up: the record wrote a column other than the one expected next, or
        /// NULL for `nonNullParameter`.
        var wroteOtherColumns = false
        /// The first bind that failed.
        var error: (any Error)?

        /// Binds `value` to `column`'s parameter, or gives the binding up.
        mutating func bind<Value: BindableValue>(_ value: Value?, _ column: String) {
            guard let parameter = nextParameter(for: column) else { return }
            guard parameter != nonNullParameter || !(value?.isNull ?? true) else {
                wroteOtherColumns = true  // the general path reports a record without a key, before running anything
                return
            }
            do {
                if let value { try value.bind(to: statement, at: parameter) } else { try statement.bind(.null, at: parameter) }
            } catch {
                self.error = error
            }
        }

        /// The parameter `column` binds to, if it is the column expected next and the statement uses it; a
        /// column other than the expected one gives the binding up.
        private mutating func nextParameter(for column: String) -> Int32? {
            guard !wroteOtherColumns, error == nil else { return nil }
            guard writtenCount < expectedColumns.count, expectedColumns[writtenCount] == column else {
                wroteOtherColumns = true
                return nil
            }
            writtenCount += 1
            let parameter = parameters?[writtenCount - 1] ?? Int32(writtenCount)
            return parameter > 0 ? parameter : nil
        }
    }

    /// A writer that collects the columns (only those of `only`, when given).
    package init(capacity: Int, only: [String]? = nil, timestamps: TimestampCache? = nil) {
        self.only = only
        self.timestamps = timestamps
        row.columns.reserveCapacity(capacity)
        row.values.reserveCapacity(capacity)
    }

    /// A writer that binds each value straight into `statement`: the record must write `columns`, in order,
    /// and each binds to its entry of `parameters` (0: not used by the statement), or, without
    /// `parameters`, to the parameter of its position; NULL for `nonNullParameter` gives the binding up.
    /// The caller has started a binding round (`Statement.beginBinding()`).
    package init(
        binding statement: any ParameterSink, columns: [String], parameters: [Int32]? = nil, nonNullParameter: Int32 = 0,
        timestamps: TimestampCache?
    ) {
        self.only = nil
        self.timestamps = timestamps
        self.binding = Binding(
            statement: statement, expectedColumns: columns, parameters: parameters, nonNullParameter: nonNullParameter)
    }

    /// Binding: whether the binding was given up (the record wrote other columns, or NULL for the key).
    package var wroteOtherColumns: Bool { binding?.wroteOtherColumns ?? false }
    /// Binding: the first bind that failed.
    package var bindingError: (any Error)? { binding?.error }

    /// Binding: whether the record wrote exactly the expected columns, no NULL where none may go, and every
    /// bind succeeded.
    package var boundEveryColumn: Bool {
        guard let binding else { return false }
        return !binding.wroteOtherColumns && binding.error == nil && binding.writtenCount == binding.expectedColumns.count
    }

    /// Writes `value` to `column` (nil is NULL).
    public mutating func encode<Value: DatabaseValueConvertible>(_ value: Value?, _ column: String) {
        write(value.map(ConvertedValue.init), column)
    }

    // The types records use most are bound as they are, without a `DatabaseValue` in between: the same
    // values, written as the generic `encode(_:_:)` writes them.

    /// Writes the integer `value` to `column` (nil is NULL).
    public mutating func encode(_ value: Int64?, _ column: String) { write(value, column) }

    /// Writes the number `value` to `column` (nil is NULL).
    public mutating func encode(_ value: Double?, _ column: String) { write(value, column) }

    /// Writes the text `value` to `column` (nil is NULL).
    public mutating func encode(_ value: String?, _ column: String) { write(value, column) }

    /// Writes the date `value` to `column` (nil is NULL), as its ``DatabaseValueConvertible`` text; a date in
    /// the same millisecond as one just written reuses that text.
    public mutating func encode(_ value: Date?, _ column: String) {
        write(value.map { DateText(date: $0, timestamps: timestamps) }, column)
    }

    /// Writes `value` to `column`: bound when binding straight into a statement, else collected in `row`.
    /// Either way it is converted only when the column is kept.
    private mutating func write<Value: BindableValue>(_ value: Value?, _ column: String) {
        guard binding == nil else { return binding!.bind(value, column) }
        if let only, !only.contains(column) { return }
        row.columns.append(column)
        row.values.append(value?.databaseValue ?? .null)
    }
}

/// A value ``RowWriter`` binds into a statement's binding round, or collects as a ``DatabaseValue``.
private protocol BindableValue {
    var databaseValue: DatabaseValue { get }
    /// Whether the value is NULL in the database (a non-nil value may convert to NULL).
    var isNull: Bool { get }
    func bind(to statement: any ParameterSink, at parameter: Int32) throws
}

extension BindableValue {
    fileprivate var isNull: Bool { false }
}

extension Int64: BindableValue {
    fileprivate func bind(to statement: any ParameterSink, at parameter: Int32) throws {
        try statement.bind(self, at: parameter)
    }
}

extension Double: BindableValue {
    fileprivate func bind(to statement: any ParameterSink, at parameter: Int32) throws {
        try statement.bind(self, at: parameter)
    }
}

extension String: BindableValue {
    fileprivate func bind(to statement: any ParameterSink, at parameter: Int32) throws {
        try statement.bindTextInRound(self, at: parameter)
    }
}

/// Any other convertible value, bound as its ``DatabaseValue``.
private struct ConvertedValue<Value: DatabaseValueConvertible>: BindableValue {
    let value: Value
    var databaseValue: DatabaseValue { value.databaseValue }
    var isNull: Bool { value.databaseValue.isNull }
    func bind(to statement: any ParameterSink, at parameter: Int32) throws {
        try statement.bindInRound(value.databaseValue, at: parameter)
    }
}

/// A date, formatted as its ``DatabaseValueConvertible`` text only when bound or collected (through the
/// writer's cache of recent dates when there is one).
private struct DateText: BindableValue {
    let date: Date
    let timestamps: TimestampCache?
    var text: String { timestamps?.text(for: date) ?? Timestamp.format(date) }
    var databaseValue: DatabaseValue { .text(text) }
    func bind(to statement: any ParameterSink, at parameter: Int32) throws {
        try statement.bindTextInRound(text, at: parameter)
    }
}
