import Foundation

/// A Swift value that can be bound to SQL and read back from a column.
///
/// For example:
///
/// ```swift
/// let rows = try tx.fetchRows("SELECT * FROM nodes WHERE x > ?", [1.5])
/// ```
public protocol DatabaseValueConvertible: Sendable {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue { get }
    /// Reads the value back; nil when `databaseValue` cannot represent `Self`.
    static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    /// The value itself.
    public var databaseValue: DatabaseValue { self }
    /// The value itself.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> DatabaseValue? { databaseValue }
}

extension Int64: DatabaseValueConvertible {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { .integer(self) }
    /// An INTEGER, or a REAL with no fractional part.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Int64? {
        switch databaseValue {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        default: nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    /// An INTEGER that fits.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(databaseValue).flatMap { Int(exactly: $0) }
    }
}

extension Int32: DatabaseValueConvertible {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    /// An INTEGER that fits.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Int32? {
        Int64.fromDatabaseValue(databaseValue).flatMap { Int32(exactly: $0) }
    }
}

extension Double: DatabaseValueConvertible {
    /// A REAL.
    public var databaseValue: DatabaseValue { .real(self) }
    /// A REAL or an INTEGER.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Double? {
        switch databaseValue {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

extension Bool: DatabaseValueConvertible {
    /// INTEGER 1 or 0.
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    /// Any INTEGER: zero is false.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Bool? {
        Int64.fromDatabaseValue(databaseValue).map { $0 != 0 }
    }
}

extension String: DatabaseValueConvertible {
    /// TEXT.
    public var databaseValue: DatabaseValue { .text(self) }
    /// TEXT only.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> String? {
        if case .text(let value) = databaseValue { return value }
        return nil
    }
}

extension Data: DatabaseValueConvertible {
    /// A BLOB.
    public var databaseValue: DatabaseValue { .blob(self) }
    /// A BLOB, or TEXT as its UTF-8 bytes.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Data? {
        switch databaseValue {
        case .blob(let value): value
        case .text(let value): Data(value.utf8)
        default: nil
        }
    }
}

extension Date: DatabaseValueConvertible {
    /// TEXT in RFC 3339 UTC with milliseconds, e.g. "2026-11-22T10:00:01.250Z" (sorts in time order).
    public var databaseValue: DatabaseValue { .text(Timestamp.format(self)) }
    /// RFC 3339 / SQLite `datetime()` TEXT, or a number of seconds since 1970.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Date? {
        switch databaseValue {
        case .text(let value): Timestamp.parse(value)
        case .integer(let value): Date(timeIntervalSince1970: Double(value))
        case .real(let value): Date(timeIntervalSince1970: value)
        default: nil
        }
    }
}

extension UUID: DatabaseValueConvertible {
    /// TEXT, the canonical upper-case form.
    public var databaseValue: DatabaseValue { .text(uuidString) }
    /// TEXT in any case, or a 16-byte BLOB.
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> UUID? {
        switch databaseValue {
        case .text(let value): UUID(uuidString: value)
        case .blob(let value) where value.count == 16:
            value.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        default: nil
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// NULL for nil, else the wrapped value's.
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    /// nil for NULL, else the wrapped type's reading (a wrong type gives nil too).
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Wrapped?? {
        if databaseValue.isNull { return .some(nil) }
        return Wrapped.fromDatabaseValue(databaseValue).map { .some($0) }
    }
}
