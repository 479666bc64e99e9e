#if PostgreSQL
import Foundation
import NIOCore
import ObservableStoreCore
import PostgresNIO

/// The core's values to and from PostgreSQL's: integers (`int2`/`int4`/`int8`, `bool` as 0/1), doubles (`float4`,
/// `float8`, `numeric`), text, blobs (`bytea`), dates (`timestamptz`/`timestamp`/`date` as the core's text form,
/// `2026-11-26T13:00:00.123Z`, milliseconds), and every other type (`jsonb`, `uuid`, …) as its text.
enum ServerValueCodec {
    /// Appends `value` to a statement's parameters: `int8`, `float8`, `text`, `bytea` or NULL. A column of another
    /// type takes a cast in the statement (`$1::timestamptz`).
    static func bind(_ value: DatabaseValue, into bindings: inout PostgresBindings) {
        switch value {
        case .null: bindings.appendNull()
        case .integer(let integer): bindings.append(integer)
        case .real(let double): bindings.append(double)
        case .text(let text): bindings.append(text)
        case .blob(let data): bindings.append(ByteBuffer(bytes: data))
        }
    }

    /// `cell`'s value.
    static func value(of cell: PostgresCell) throws -> DatabaseValue {
        guard var bytes = cell.bytes else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8, .oid: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .numeric:
                let decimal = try cell.decode(Decimal.self)
                return .real(NSDecimalNumber(decimal: decimal).doubleValue)
            case .bytea: return .blob(Data(bytes.readableBytesView))
            case .timestamptz, .timestamp, .date: return .text(Timestamp.format(try cell.decode(Date.self)))
            case .jsonb where cell.format == .binary:
                bytes.moveReaderIndex(forwardBy: 1)  // the jsonb format version
                return .text(String(buffer: bytes))
            default:
                if cell.format == .text { return .text(String(buffer: bytes)) }
                return .text(try cell.decode(String.self))
            }
        } catch {
            throw StoreError(
                .invalidInput, "cannot read column \(cell.columnName) of type \(cell.dataType) (\(String(describing: error)))")
        }
    }
}
#endif
