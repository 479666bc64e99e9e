import Foundation

/// JSON text for database values: the one encoding of values that `storectl`'s JSON output, `storectl watch` and
/// ``CommitJSON`` share.
///
/// Integers print as JSON integers, reals always with a fraction (`2.0`) so they read back as REAL, text as a JSON
/// string, blobs as `{"$base64":"…"}`, and NULL as `null`. Non-finite reals (which JSON cannot hold) print as
/// strings (`"inf"`, `"nan"`).
///
/// For example:
///
/// ```swift
/// JSONText.object(["id", "name"], [.integer(1), .text("a\"b")])  // {"id":1,"name":"a\"b"}
/// ```
public enum JSONText {
    /// One object of `columns` paired with `values`, in column order.
    public static func object(_ columns: [String], _ values: [DatabaseValue]) -> String {
        "{" + zip(columns, values).map { string($0) + ":" + value($1) }.joined(separator: ",") + "}"
    }

    /// `value` as a JSON value.
    public static func value(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let integer): String(integer)
        case .real(let real): real.isFinite ? number(real) : string(String(real))
        case .text(let text): string(text)
        case .blob(let data): "{\"$base64\":\(string(data.base64EncodedString()))}"
        }
    }

    /// A double as a JSON number: integral values keep a ".0" so they read back as REAL.
    public static func number(_ value: Double) -> String {
        // What "%.1f" prints for these, without the cost of String(format:); the sign of -0.0 is kept too.
        if value == value.rounded(), abs(value) < 1e15 { return (value.sign == .minus ? "-" : "") + String(Int64(abs(value))) + ".0" }
        return "\(value)"
    }

    /// `text` as a JSON string, quoted, with quotes, backslashes and control characters escaped (and U+2028,
    /// U+2029, which JavaScript source cannot hold raw).
    public static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let control where control.value < 0x20 || control.value == 0x7F || control.value == 0x2028 || control.value == 0x2029:
                result += String(format: "\\u%04x", control.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
