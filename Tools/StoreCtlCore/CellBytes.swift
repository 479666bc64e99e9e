import Foundation
import ObservableStore

/// Cells written as JSON or CSV bytes straight into an ``OutputBuffer``, in exactly the text ``JSONText`` and
/// ``CSVText`` give for the same values, without a `String` per cell: numbers are formatted into the buffer,
/// TEXT is copied from SQLite's bytes with escapes added. Invalid UTF-8 in TEXT is repaired with U+FFFD, as
/// reading it as a `String` does.
enum CellBytes {
    /// Cell `index` of `row` as a JSON value: null, a number, a string, or `{"$base64":"…"}` for a blob.
    /// A REAL that is not finite is a string ("inf", "-inf", "nan").
    static func appendJSON(_ row: some RowCells, at index: Int, to out: OutputBuffer) {
        switch row.storageClass(at: index) {
        case .null: appendASCII("null", to: out)
        case .integer: out.append(row.int64(at: index))
        case .real:
            let real = row.double(at: index)
            if real.isFinite {
                appendNumber(real, to: out)
            } else {
                out.append(UInt8(ascii: "\""))
                appendNumber(real, to: out)
                out.append(UInt8(ascii: "\""))
            }
        case .text: row.withBytes(at: index) { appendJSONString($0, to: out) }
        case .blob:
            appendASCII("{\"$base64\":\"", to: out)
            row.withBytes(at: index) { appendBase64($0, to: out) }
            appendASCII("\"}", to: out)
        }
    }

    /// Cell `index` of `row` as a CSV field: empty for NULL, blobs in base64, quoted when needed.
    static func appendCSV(_ row: some RowCells, at index: Int, to out: OutputBuffer) {
        switch row.storageClass(at: index) {
        case .null: break
        case .integer: out.append(row.int64(at: index))
        case .real: appendNumber(row.double(at: index), to: out)
        case .text: row.withBytes(at: index) { appendCSVField($0, to: out) }
        case .blob: row.withBytes(at: index) { appendBase64($0, to: out) }
        }
    }

    /// A double as ``JSONText/number(_:)`` writes it: integral values below 1e15 with ".0", others in Swift's
    /// shortest round-trip form.
    static func appendNumber(_ value: Double, to out: OutputBuffer) {
        if value == value.rounded(), abs(value) < 1e15 {
            if value.sign == .minus { out.append(UInt8(ascii: "-")) }  // "%.1f" keeps the sign of -0.0 too
            out.append(Int64(abs(value)))
            appendASCII(".0", to: out)
        } else {
            out.append(value.description)
        }
    }

    /// `bytes` (TEXT) as a JSON string, escaped as ``JSONText/string(_:)`` escapes.
    static func appendJSONString(_ bytes: UnsafeRawBufferPointer, to out: OutputBuffer) {
        out.append(UInt8(ascii: "\""))
        if isValidUTF8(bytes) {
            appendJSONEscaped(bytes, to: out)
        } else {
            var repaired = String(decoding: bytes, as: UTF8.self)
            repaired.withUTF8 { appendJSONEscaped(UnsafeRawBufferPointer($0), to: out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `bytes` (TEXT) as an RFC 4180 field: quoted, with quotes doubled, when it holds a comma, a quote, CR or LF.
    static func appendCSVField(_ bytes: UnsafeRawBufferPointer, to out: OutputBuffer) {
        guard isValidUTF8(bytes) else {
            var repaired = String(decoding: bytes, as: UTF8.self)
            return repaired.withUTF8 { appendCSVField(UnsafeRawBufferPointer($0), to: out) }
        }
        let needsQuotes = bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return out.append(bytes) }
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\"") {
            out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart...index]))
            out.append(UInt8(ascii: "\""))
            runStart = index + 1
        }
        out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart...]))
        out.append(UInt8(ascii: "\""))
    }

    /// Valid UTF-8 `bytes` with JSON escapes: `\"`, `\\`, `\n`, `\r`, `\t`, and `\u00XX` for the other control
    /// characters, DEL, U+2028 and U+2029. Runs without escapes are copied whole.
    private static func appendJSONEscaped(_ bytes: UnsafeRawBufferPointer, to out: OutputBuffer) {
        let count = bytes.count
        var runStart = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F && byte != 0xE2 {
                index += 1
                continue
            }
            var length = 1
            if byte == 0xE2 {  // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
                guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] & 0xFE == 0xA8 else {
                    index += 1
                    continue
                }
                length = 3
            }
            out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): appendASCII("\\\"", to: out)
            case UInt8(ascii: "\\"): appendASCII("\\\\", to: out)
            case 0x0A: appendASCII("\\n", to: out)
            case 0x0D: appendASCII("\\r", to: out)
            case 0x09: appendASCII("\\t", to: out)
            case 0xE2: appendASCII(bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029", to: out)
            default:
                appendASCII("\\u00", to: out)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
            index += length
            runStart = index
        }
        out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<count]))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF), as Swift's
    /// own decoding judges it. ASCII is checked eight bytes at a time.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= low && second <= high else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }

    private static let base64Digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64 (RFC 4648, with padding, no line breaks), as `Data.base64EncodedString()` writes them.
    static func appendBase64(_ bytes: UnsafeRawBufferPointer, to out: OutputBuffer) {
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(base64Digits[Int(group >> 18 & 0x3F)])
            out.append(base64Digits[Int(group >> 12 & 0x3F)])
            out.append(base64Digits[Int(group >> 6 & 0x3F)])
            out.append(base64Digits[Int(group & 0x3F)])
            index += 3
        }
        let rest = bytes.count - index
        guard rest > 0 else { return }
        let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
        out.append(base64Digits[Int(group >> 18 & 0x3F)])
        out.append(base64Digits[Int(group >> 12 & 0x3F)])
        out.append(rest == 2 ? base64Digits[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
        out.append(UInt8(ascii: "="))
    }

    /// A literal's bytes.
    static func appendASCII(_ text: StaticString, to out: OutputBuffer) {
        out.append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
