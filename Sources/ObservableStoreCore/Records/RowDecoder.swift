import Foundation

extension Row: ColumnSource {
    package var columnCount: Int32 { Int32(columns.count) }
    package var columnNames: [String] { columns }
    package func columnName(at index: Int32) -> String { columns[Int(index)] }
    package func columnIndex(named name: String) -> Int32? { columns.firstIndex(of: name).map { Int32($0) } }
    package func storageClass(at index: Int32) -> StorageClass {
        switch values[Int(index)] {
        case .null: .null
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }
    package func isNull(at index: Int32) -> Bool { values[Int(index)].isNull }
    package func text(at index: Int32) -> String { String.fromDatabaseValue(values[Int(index)]) ?? "" }
    package func blob(at index: Int32) -> Data { Data.fromDatabaseValue(values[Int(index)]) ?? Data() }
    package func value(at index: Int32) -> DatabaseValue { values[Int(index)] }
    package func numberValue(at index: Int32) -> Double? {
        switch values[Int(index)] {
        case .integer(let integer): Double(integer)
        case .real(let double): double
        default: nil
        }
    }
    package func integerValue(at index: Int32) -> Int64? {
        switch values[Int(index)] {
        case .integer(let integer): integer
        case .real(let double): Int64(exactly: double)
        default: nil
        }
    }
    package func textValue(at index: Int32) -> String? {
        guard case .text(let text) = values[Int(index)] else { return nil }
        return text
    }
    package func date(at index: Int32) -> Date? { Date.fromDatabaseValue(values[Int(index)]) }
}

extension Row {
    /// Decodes the row as a `T` (columns by name), as records are decoded from the database: through
    /// ``RowDecodable`` when `T` conforms, else through `Decodable`. Typed events decode their rows so.
    ///
    /// Throws ``StoreError/Code/invalidInput`` naming the column that does not fit.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try RowReader.decode(type, from: self)
        } catch let error as DecodingError {
            throw StoreError(.invalidInput, "cannot decode \(T.self): \(error.summary)")
        }
    }
}

/// Decodes a `Decodable` record straight from a row (a statement's current row, or a ``Row``): one column per key.
///
/// No JSON round trip: scalars are read with the typed column accessors. Storage classes are checked
/// (an `Int` property does not silently read TEXT as 0); a mismatch throws `DecodingError.typeMismatch`
/// naming the column.
package struct RowDecoder<Source: ColumnSource>: Decoder {
    package let statement: Source
    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package static func decode<T: Decodable>(_ type: T.Type, from statement: Source) throws -> T {
        try T(from: RowDecoder(statement: statement))
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer(statement: statement))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container"))
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard statement.columnCount == 1 else {
            throw DecodingError.typeMismatch(
                Any.self, .init(codingPath: [], debugDescription: "a single value needs a one-column row"))
        }
        return ColumnDecoder(statement: statement, index: 0, column: statement.columnName(at: 0))
    }

    package struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        package let statement: Source
        package var codingPath: [any CodingKey] { [] }

        package var allKeys: [Key] { statement.columnNames.compactMap { Key(stringValue: $0) } }

        package func contains(_ key: Key) -> Bool { statement.columnIndex(named: key.stringValue) != nil }

        private func column(_ key: Key) throws -> ColumnDecoder<Source> {
            guard let index = statement.columnIndex(named: key.stringValue) else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: [], debugDescription: "no column \(key.stringValue) in the row"))
            }
            return ColumnDecoder(statement: statement, index: index, column: key.stringValue)
        }

        package func decodeNil(forKey key: Key) throws -> Bool {
            guard let index = statement.columnIndex(named: key.stringValue) else { return true }
            return statement.isNull(at: index)
        }

        package func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try column(key).decode(type) }
        package func decode(_ type: String.Type, forKey key: Key) throws -> String { try column(key).decode(type) }
        package func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try column(key).decode(type) }
        package func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try column(key).decode(type) }
        package func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try column(key).decode(type) }
        package func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try column(key).decode(type) }
        package func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try column(key).decode(type) }
        package func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try column(key).decode(type) }
        package func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try column(key).decode(type) }
        package func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try column(key).decode(type) }
        package func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try column(key).decode(type) }
        package func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try column(key).decode(type) }
        package func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try column(key).decode(type) }
        package func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try column(key).decode(type) }
        package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try column(key).decode(type) }

        package func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            throw unsupported(key)
        }

        package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw unsupported(key)
        }

        package func superDecoder() throws -> any Decoder { RowDecoder(statement: statement) }

        package func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported(key) }

        private func unsupported(_ key: Key) -> DecodingError {
            .typeMismatch(
                Any.self,
                .init(
                    codingPath: [key],
                    debugDescription: "nested containers are not supported in a record; decode a Codable value"))
        }
    }
}

/// Decodes one column of the current row: scalars directly, single-value `Codable` types through
/// `singleValueContainer()`, and keyed or unkeyed types from the column's JSON text.
package struct ColumnDecoder<Source: ColumnSource>: Decoder, SingleValueDecodingContainer {
    package let statement: Source
    package let index: Int32
    package let column: String
    package var codingPath: [any CodingKey] { [ColumnKey(stringValue: column)] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw mismatch(Any.self, "a JSON object")
    }
    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw mismatch(Any.self, "a JSON array") }
    package func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    package func decodeNil() -> Bool { statement.isNull(at: index) }

    package func decode(_ type: Bool.Type) throws -> Bool { try integer(Int64.self) != 0 }
    package func decode(_ type: String.Type) throws -> String {
        guard let text = statement.textValue(at: index) else { throw mismatch(type, "TEXT") }
        return text
    }
    package func decode(_ type: Double.Type) throws -> Double {
        guard let number = statement.numberValue(at: index) else { throw mismatch(type, "REAL") }
        return number
    }
    package func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    package func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    package func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    package func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    package func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    package func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    package func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    package func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    package func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    package func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self {
            guard let date = statement.date(at: index) else { throw mismatch(type, "a date") }
            return date as! T  // T is Date
        }
        if T.self == Data.self || T.self == UUID.self || T.self == DatabaseValue.self,
            let convertible = T.self as? any DatabaseValueConvertible.Type
        {
            let value = statement.value(at: index)
            guard let result = convertible.fromDatabaseValue(value) as? T else {
                throw mismatch(type, "a \(T.self) value")
            }
            return result
        }
        switch statement.storageClass(at: index) {
        case .text where T.self != String.self:
            // Single-value types (String-backed enums, wrappers) first; JSON for the rest.
            do {
                return try T(from: self)
            } catch {
                let data = Data(statement.text(at: index).utf8)
                guard let decoded = try? JSONDecoder.forColumns.decode(T.self, from: data) else { throw error }
                return decoded
            }
        case .blob:
            do {
                return try T(from: self)
            } catch {
                guard let decoded = try? JSONDecoder.forColumns.decode(T.self, from: statement.blob(at: index)) else {
                    throw error
                }
                return decoded
            }
        default:
            return try T(from: self)
        }
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard let value = statement.integerValue(at: index) else { throw mismatch(type, "INTEGER") }
        guard let result = T(exactly: value) else { throw mismatch(type, "an INTEGER that fits \(T.self)") }
        return result
    }

    /// The error for a column whose value is not the `expected` kind of value for `type`.
    package func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        let found = statement.isNull(at: index) ? "NULL" : "\(statement.storageClass(at: index))".uppercased()
        return .typeMismatch(
            type, .init(codingPath: codingPath, debugDescription: "column \(column): expected \(expected), found \(found)"))
    }
}

/// A coding key naming a column.
package struct ColumnKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}

extension JSONDecoder {
    /// The decoder for JSON-valued columns, matching ``JSONEncoder/forColumns``.
    package static var forColumns: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad date"))
            }
            return date
        }
        return decoder
    }
}
