import Foundation

/// A record's columns and values, in the order its `encode(to:)` wrote them.
package struct EncodedRow {
    package var columns: [String] = []
    package var values: [DatabaseValue] = []

    /// The value of `column`, if the record wrote one.
    package func value(of column: String) -> DatabaseValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }
}

/// Encodes a `Codable` record into an ``EncodedRow``: one keyed container, one column per key.
///
/// No JSON round trip: scalars go straight to ``DatabaseValue``s. Only values that are neither
/// scalar nor single-value `Codable` (arrays, nested structs) become JSON text.
package enum RowEncoder {
    /// `record`'s row for an update of `columns` and its primary key, the names checked: throws
    /// ``StoreError/Code/invalidInput`` when `columns` is empty or names the primary key or a column the record does
    /// not write.
    package static func encodeForUpdate<R: Record>(
        _ record: R, columns: [String], timestamps: TimestampCache? = nil
    ) throws -> EncodedRow {
        guard !columns.isEmpty else {
            throw StoreError(.invalidInput, "\(R.tableName): update names no column to write")
        }
        let row = try encode(record, only: columns + [R.primaryKey], timestamps: timestamps)
        if let unknown = columns.first(where: { $0 == R.primaryKey || !row.columns.contains($0) }) {
            let reason = unknown == R.primaryKey ? "is the primary key" : "is not a column the record writes"
            throw StoreError(.invalidInput, "\(R.tableName): cannot update column \(quoted(unknown)): it \(reason)")
        }
        return row
    }

    /// Encodes `value`: through ``RowEncodable`` when it conforms, else through `Encodable`.
    ///
    /// With `only`, the row keeps just those of its columns, in the record's order. `timestamps`, when
    /// given, formats the dates of a ``RowEncodable`` record.
    package static func encode<Value: Encodable>(
        _ value: Value, only: [String]? = nil, timestamps: TimestampCache? = nil
    ) throws -> EncodedRow {
        // Cast the type, not the value: casting the value to an existential copies it on every row.
        if let encodable = Value.self as? any RowEncodable.Type {
            return encodeFast(value, as: encodable, only: only, timestamps: timestamps)
        }
        var row = try encodeWithCoding(value)
        if let only {
            let kept = row.columns.indices.filter { only.contains(row.columns[$0]) }
            row = EncodedRow(columns: kept.map { row.columns[$0] }, values: kept.map { row.values[$0] })
        }
        return row
    }

    /// `value` written by its ``RowEncodable`` conformance; `Value` is `Fast` (checked by the caller's cast).
    private static func encodeFast<Value, Fast: RowEncodable>(
        _ value: Value, as type: Fast.Type, only: [String]?, timestamps: TimestampCache?
    ) -> EncodedRow {
        var writer = RowWriter(capacity: 12, only: only, timestamps: timestamps)
        write(value, as: type, into: &writer)
        return writer.row
    }

    /// Writes `value` into `writer` by its ``RowEncodable`` conformance; `Value` is `Fast` (checked by the
    /// caller's cast of the type: casting the value would copy it).
    package static func write<Value, Fast: RowEncodable>(_ value: Value, as type: Fast.Type, into writer: inout RowWriter) {
        withUnsafePointer(to: value) { pointer in
            pointer.withMemoryRebound(to: Fast.self, capacity: 1) { $0.pointee.encode(to: &writer) }
        }
    }

    /// Encodes `value` through `Encodable` only.
    package static func encodeWithCoding(_ value: some Encodable) throws -> EncodedRow {
        let encoder = Encoder()
        try value.encode(to: encoder)
        if let failure = encoder.failure { throw failure }
        return encoder.row
    }

    /// Encodes one value for one column.
    package static func databaseValue(of value: some Encodable, column: String) throws -> DatabaseValue {
        switch value {
        case let value as any DatabaseValueConvertible: return value.databaseValue
        default:
            let encoder = ColumnEncoder()
            try value.encode(to: encoder)
            if let result = encoder.result { return result }
            // A keyed or unkeyed value: store it as JSON text.
            let data = try JSONEncoder.forColumns.encode(value)
            return .text(String(decoding: data, as: UTF8.self))
        }
    }

    package final class Encoder: Swift.Encoder {
        package var row = EncodedRow()
        package var failure: (any Error)?
        package var codingPath: [any CodingKey] { [] }
        package var userInfo: [CodingUserInfoKey: Any] { [:] }

        package init() {
            row.columns.reserveCapacity(12)
            row.values.reserveCapacity(12)
        }

        package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(KeyedContainer(encoder: self))
        }

        package func unkeyedContainer() -> any UnkeyedEncodingContainer {
            failure = StoreError(.invalidInput, "a record must encode a keyed container (one column per key)")
            return DiscardingContainers.unkeyed()
        }

        package func singleValueContainer() -> any SingleValueEncodingContainer {
            failure = StoreError(.invalidInput, "a record must encode a keyed container (one column per key)")
            return DiscardingContainers.singleValue()
        }

        package func append(_ column: String, _ value: DatabaseValue) {
            if let index = row.columns.firstIndex(of: column) {
                row.values[index] = value
            } else {
                row.columns.append(column)
                row.values.append(value)
            }
        }
    }

    package struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        package let encoder: Encoder
        package var codingPath: [any CodingKey] { [] }

        package mutating func encodeNil(forKey key: Key) { encoder.append(key.stringValue, .null) }
        package mutating func encode(_ value: Bool, forKey key: Key) { encoder.append(key.stringValue, .integer(value ? 1 : 0)) }
        package mutating func encode(_ value: String, forKey key: Key) { encoder.append(key.stringValue, .text(value)) }
        package mutating func encode(_ value: Double, forKey key: Key) { encoder.append(key.stringValue, .real(value)) }
        package mutating func encode(_ value: Float, forKey key: Key) { encoder.append(key.stringValue, .real(Double(value))) }
        package mutating func encode(_ value: Int, forKey key: Key) { encoder.append(key.stringValue, .integer(Int64(value))) }
        package mutating func encode(_ value: Int8, forKey key: Key) { encoder.append(key.stringValue, .integer(Int64(value))) }
        package mutating func encode(_ value: Int16, forKey key: Key) { encoder.append(key.stringValue, .integer(Int64(value))) }
        package mutating func encode(_ value: Int32, forKey key: Key) { encoder.append(key.stringValue, .integer(Int64(value))) }
        package mutating func encode(_ value: Int64, forKey key: Key) { encoder.append(key.stringValue, .integer(value)) }
        package mutating func encode(_ value: UInt8, forKey key: Key) { encoder.append(key.stringValue, .integer(Int64(value))) }
        package mutating func encode(_ value: UInt16, forKey key: Key) {
            encoder.append(key.stringValue, .integer(Int64(value)))
        }
        package mutating func encode(_ value: UInt32, forKey key: Key) {
            encoder.append(key.stringValue, .integer(Int64(value)))
        }
        package mutating func encode(_ value: UInt, forKey key: Key) throws {
            encoder.append(key.stringValue, .integer(try exactInt64(value, key)))
        }
        package mutating func encode(_ value: UInt64, forKey key: Key) throws {
            encoder.append(key.stringValue, .integer(try exactInt64(value, key)))
        }
        package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            encoder.append(key.stringValue, try RowEncoder.databaseValue(of: value, column: key.stringValue))
        }

        // Synthesized `Codable` skips nil optionals through `encodeIfPresent`; a record writes NULL instead,
        // so that an update really clears the column.
        package mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }
        package mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            try encodeOptional(value, key)
        }

        private mutating func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
            guard let value else { return encodeNil(forKey: key) }
            try encode(value, forKey: key)
        }

        private func exactInt64<T: BinaryInteger>(_ value: T, _ key: Key) throws -> Int64 {
            guard let result = Int64(exactly: value) else {
                throw StoreError(.invalidInput, "column \(key.stringValue): \(value) does not fit in a 64-bit integer")
            }
            return result
        }

        package mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            encoder.failure = unsupported(key)
            return DiscardingContainers.keyed(keyType)
        }

        package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            encoder.failure = unsupported(key)
            return DiscardingContainers.unkeyed()
        }

        package mutating func superEncoder() -> any Swift.Encoder {
            encoder.failure = StoreError(.invalidInput, "a record cannot encode a super encoder")
            return encoder
        }

        package mutating func superEncoder(forKey key: Key) -> any Swift.Encoder {
            encoder.failure = unsupported(key)
            return encoder
        }

        private func unsupported(_ key: Key) -> StoreError {
            StoreError(
                .invalidInput,
                "column \(key.stringValue): nested containers are not supported in a record; "
                    + "encode a Codable value instead (it is stored as JSON)")
        }
    }
}

/// Encodes a single-value `Codable` type (e.g. `enum Color: String`) into one ``DatabaseValue``.
/// Leaves `result` nil when the type asks for a keyed or unkeyed container instead.
package final class ColumnEncoder: Encoder, SingleValueEncodingContainer {
    package var result: DatabaseValue?
    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        DiscardingContainers.keyed(type)
    }
    package func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingContainers.unkeyed() }
    package func singleValueContainer() -> any SingleValueEncodingContainer { self }

    package func encodeNil() { result = .null }
    package func encode(_ value: Bool) { result = value.databaseValue }
    package func encode(_ value: String) { result = .text(value) }
    package func encode(_ value: Double) { result = .real(value) }
    package func encode(_ value: Float) { result = .real(Double(value)) }
    package func encode(_ value: Int) { result = .integer(Int64(value)) }
    package func encode(_ value: Int8) { result = .integer(Int64(value)) }
    package func encode(_ value: Int16) { result = .integer(Int64(value)) }
    package func encode(_ value: Int32) { result = .integer(Int64(value)) }
    package func encode(_ value: Int64) { result = .integer(value) }
    package func encode(_ value: UInt8) { result = .integer(Int64(value)) }
    package func encode(_ value: UInt16) { result = .integer(Int64(value)) }
    package func encode(_ value: UInt32) { result = .integer(Int64(value)) }
    package func encode(_ value: UInt) throws { result = .integer(try Self.exact(value)) }
    package func encode(_ value: UInt64) throws { result = .integer(try Self.exact(value)) }
    package func encode<T: Encodable>(_ value: T) throws { result = try RowEncoder.databaseValue(of: value, column: "") }

    private static func exact<T: BinaryInteger>(_ value: T) throws -> Int64 {
        guard let result = Int64(exactly: value) else {
            throw StoreError(.invalidInput, "\(value) does not fit in a 64-bit integer")
        }
        return result
    }
}

/// Throwaway containers, returned where an encoder must return one but has already recorded why it
/// cannot go on: whatever is written into them is discarded.
package enum DiscardingContainers {
    package static func keyed<Key: CodingKey>(_ type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Keyed<Key>())
    }
    package static func unkeyed() -> any UnkeyedEncodingContainer { Unkeyed() }
    package static func singleValue() -> any SingleValueEncodingContainer { Single() }

    private final class Sink: Encoder {
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { keyed(type) }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed() }
        func singleValueContainer() -> any SingleValueEncodingContainer { Single() }
    }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) {}
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {}
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> { keyed(keyType) }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Unkeyed() }
        mutating func superEncoder() -> any Encoder { Sink() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { Sink() }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        mutating func encodeNil() {}
        mutating func encode<T: Encodable>(_ value: T) {}
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> { keyed(keyType) }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed() }
        mutating func superEncoder() -> any Encoder { Sink() }
    }

    private struct Single: SingleValueEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() {}
        mutating func encode<T: Encodable>(_ value: T) {}
    }
}

extension JSONEncoder {
    /// The encoder for JSON-valued columns: sorted keys (stable text), dates as RFC 3339.
    package static var forColumns: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        return encoder
    }
}

// Comparing records that are not `Equatable`, for observed values and live models on either engine.
extension RowEncoder {
    /// Whether two records write the same columns with the same values.
    package static func sameColumns<R: Encodable>(_ old: R, _ new: R) -> Bool {
        guard let old = try? encode(old), let new = try? encode(new) else { return false }
        return old.columns == new.columns && old.values == new.values
    }

    /// Whether two lists of records have the same length and, element by element, the same columns and values.
    package static func sameRecords<R: Encodable>(_ old: [R], _ new: [R]) -> Bool {
        old.count == new.count && zip(old, new).allSatisfy { sameColumns($0, $1) }
    }

    /// Whether two optional records are both absent, or write the same columns with the same values.
    package static func sameRecord<R: Encodable>(_ old: R?, _ new: R?) -> Bool {
        switch (old, new) {
        case (nil, nil): true
        case (let old?, let new?): sameColumns(old, new)
        default: false
        }
    }
}
