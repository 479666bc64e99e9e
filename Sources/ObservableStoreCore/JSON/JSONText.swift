import Foundation

/// JSON text for database values: the one encoding of values that `storectl`'s JSON output, `storectl watch` and
/// ``CommitJSON`` share.
///
/// Integers print as JSON integers, reals always with a fraction (`2.0`) so they read back as REAL, text as a JSON
/// string, blobs as `{"$base64":"…"}`, and NULL as `null`. Non-finite reals (which JSON cannot hold) print as
/// strings (`"inf"`, `"nan"`).
///
/// The `append` functions write the same text as UTF-8 bytes onto the end of a caller's buffer, so a large
/// document (a page of rows) is built in one buffer; the others return a `String`.
///
/// For example:
///
/// ```swift
/// JSONText.object(["id", "name"], [.integer(1), .text("a\"b")])  // {"id":1,"name":"a\"b"}
///
/// var page: [UInt8] = Array("[".utf8)
/// JSONText.appendObject(["id"], [.integer(1)], to: &page)  // [{"id":1}
/// ```
public enum JSONText {
    /// One object of `columns` paired with `values`, in column order.
    public static func object(_ columns: [String], _ values: [DatabaseValue]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 * columns.count + 2)
        appendObject(columns, values, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as a JSON value.
    public static func value(_ value: DatabaseValue) -> String {
        var bytes: [UInt8] = []
        appendValue(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 of ``object(_:_:)`` to `bytes`.
    public static func appendObject(_ columns: [String], _ values: [DatabaseValue], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, (column, value)) in zip(columns, values).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(column, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendValue(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends the UTF-8 of ``value(_:)`` to `bytes`.
    public static func appendValue(_ value: DatabaseValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .integer(let integer): bytes.append(contentsOf: String(integer).utf8)
        case .real(let real):
            if real.isFinite { bytes.append(contentsOf: number(real).utf8) } else { appendString(String(real), to: &bytes) }
        case .text(let text): appendString(text, to: &bytes)
        case .blob(let data):
            bytes.append(contentsOf: "{\"$base64\":".utf8)
            appendString(data.base64EncodedString(), to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends the UTF-8 of ``string(_:)`` to `bytes`: runs that need no escape are copied whole.
    public static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                let length: Int  // of the UTF-8 sequence to escape at `index`; 0 when it needs none
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F {
                    length = 1
                } else if byte == 0xE2, index + 2 < utf8.count, utf8[index + 1] == 0x80, utf8[index + 2] & 0xFE == 0xA8 {
                    length = 3  // U+2028 or U+2029
                } else {
                    length = 0
                }
                if length == 0 {
                    index += 1
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(of: byte, length == 1 ? UInt32(byte) : 0x2028 + UInt32(utf8[index + 2] & 1), to: &bytes)
                index += length
                runStart = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends the escape of one character: the short forms for quote, backslash, newline, return and tab,
    /// `\uXXXX` (lowercase hex) for the rest.
    private static func appendEscape(of byte: UInt8, _ scalar: UInt32, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
        case UInt8(ascii: "\n"): bytes.append(contentsOf: "\\n".utf8)
        case UInt8(ascii: "\r"): bytes.append(contentsOf: "\\r".utf8)
        case UInt8(ascii: "\t"): bytes.append(contentsOf: "\\t".utf8)
        default:
            bytes.append(contentsOf: "\\u".utf8)
            for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hexDigits[Int((scalar >> UInt32(shift)) & 0xF)]) }
        }
    }
}
