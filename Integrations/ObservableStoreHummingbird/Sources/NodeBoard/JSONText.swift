import Foundation
import ObservableStore

/// JSON text written by hand, with keys in a fixed order (a node's columns in table order), numbers as `storectl`
/// writes them (an integral REAL keeps ".0") and strings escaped per RFC 8259.
public enum JSONText {
    /// A store row as a JSON object, its columns as keys in the row's order.
    ///
    /// ```swift
    /// JSONText.row(Row(columns: ["id", "x"], values: [.integer(1), .real(20)]))   // {"id":1,"x":20.0}
    /// ```
    public static func row(_ row: Row) -> String {
        object(zip(row.columns, row.values).map { ($0, value(of: $1)) })
    }

    /// An object with `members` in the given order.
    public static func object(_ members: [(String, JSONValue)]) -> String {
        "{" + members.map { string($0.0) + ":" + text($0.1) }.joined(separator: ",") + "}"
    }

    /// `value` as JSON text (an object's keys sorted).
    public static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value): number(value)
        case .string(let value): string(value)
        case .array(let values): "[" + values.map(text).joined(separator: ",") + "]"
        case .object(let members): object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
    }

    /// A stored value as JSON: a blob as `{"$base64":"…"}`, a REAL that is not finite as a string, as `storectl`
    /// does.
    public static func value(of databaseValue: DatabaseValue) -> JSONValue {
        switch databaseValue {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): value.isFinite ? .number(value) : .string(number(value))
        case .text(let value): .string(value)
        case .blob(let data): .object(["$base64": .string(data.base64EncodedString())])
        }
    }

    /// A double: integral values below 1e15 with ".0", others in Swift's shortest round-trip form.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == value.rounded(), abs(value) < 1e15 {
            return (value.sign == .minus ? "-" : "") + String(Int64(abs(value))) + ".0"
        }
        return value.description
    }

    /// `text` as a JSON string literal.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
