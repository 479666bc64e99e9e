#if PostgreSQL
import Foundation
import ObservableStoreCore

/// A row image as the capture triggers log it (`to_jsonb(row)`), read back as the core's ``Row`` with the values a
/// fetch of the same row returns: the table's column types (``PostgresTableLayout``) say how each JSON value reads.
///
/// - integer columns (`int2`, `int4`, `int8`, `oid`): `.integer`; `bool`: `.integer(1)` / `.integer(0)`;
/// - `float4`, `float8`, `numeric`: `.real`, integral or not (`"NaN"`, `"Infinity"` come as strings);
/// - `bytea` (`"\\x00ff"` in JSON): `.blob`;
/// - `timestamptz`, `timestamp`, `date` (`"2026-11-26T13:00:00.123+00:00"`): the core's text form
///   `2026-11-26T13:00:00.123Z`;
/// - `uuid`: its text in upper case (as postgres-nio's `UUID` prints it);
/// - `json`, `jsonb`: the value's JSON text; every other type: its string;
/// - a column the layout does not know (added since it was read): integral numbers `.integer`, other numbers `.real`,
///   strings `.text`.
///
/// Columns come in the table's order (a jsonb object orders its keys by length), unknown ones last.
enum PostgresRowImage {
    /// One value of a JSON object: its kind and its text (a string's unescaped content; the raw text otherwise).
    enum Token: Equatable {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
        /// An object or array, as written.
        case structured(String)
    }

    /// `json` (a JSON object) as a row of `layout`'s table. Throws ``StoreError/Code/invalidInput`` when it is not
    /// a JSON object.
    static func row(_ json: String, layout: PostgresTableLayout?) throws -> Row {
        let members = try parseObject(json)
        var columns: [String] = []
        var values: [DatabaseValue] = []
        columns.reserveCapacity(members.count)
        values.reserveCapacity(members.count)
        if let layout {
            var byName: [String: Token] = [:]
            for (key, token) in members { byName[key] = token }
            for column in layout.columns {
                guard let token = byName.removeValue(forKey: column.name) else { continue }
                columns.append(column.name)
                values.append(try value(of: token, as: column.kind, column: column.name))
            }
            for (key, token) in members where byName[key] != nil {
                columns.append(key)
                values.append(try value(of: token, as: nil, column: key))
            }
        } else {
            for (key, token) in members {
                columns.append(key)
                values.append(try value(of: token, as: nil, column: key))
            }
        }
        return Row(columns: columns, values: values)
    }

    /// `token` as a value of a column of `kind` (nil: unknown, judged by the token).
    static func value(of token: Token, as kind: PostgresTableLayout.Kind?, column: String) throws -> DatabaseValue {
        switch (token, kind) {
        case (.null, _): return .null
        case (.bool(let flag), _): return .integer(flag ? 1 : 0)
        case (.number(let text), .integer?), (.number(let text), nil):
            if let integer = Int64(text) { return .integer(integer) }
            return .real(try double(text, column: column))
        case (.number(let text), .real?), (.string(let text), .real?):
            return .real(try double(text, column: column))
        case (.string(let text), .blob?):
            guard let data = hexData(text) else {
                throw StoreError(.invalidInput, "column \(column): \"\(text.prefix(20))\" is not bytea hex text")
            }
            return .blob(data)
        case (.string(let text), .date?):
            guard let date = Timestamp.parse(text) else {
                throw StoreError(.invalidInput, "column \(column): \"\(text)\" is not a date")
            }
            return .text(Timestamp.format(date))
        case (.string(let text), .uuid?): return .text(text.uppercased())
        case (.string(let text), _): return .text(text)
        case (.structured(let text), _), (.number(let text), _): return .text(text)
        }
    }

    private static func double(_ text: String, column: String) throws -> Double {
        guard let value = Double(text) else { throw StoreError(.invalidInput, "column \(column): \"\(text)\" is not a number") }
        return value
    }

    /// PostgreSQL's hex form of bytea, `\x00ff`, as bytes.
    private static func hexData(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else { return nil }
        var data = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The members of a JSON object, in the order written.
    static func parseObject(_ json: String) throws -> [(String, Token)] {
        var parser = Parser(bytes: Array(json.utf8))
        return try parser.object()
    }

    /// A JSON reader for one object of scalar members (nested objects and arrays are kept as text).
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func object() throws -> [(String, Token)] {
            skipSpace()
            try expect(UInt8(ascii: "{"))
            var members: [(String, Token)] = []
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return members
            }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                members.append((key, try token()))
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(UInt8(ascii: "}"))
                return members
            }
        }

        private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        private mutating func expect(_ byte: UInt8) throws {
            guard peek == byte else { throw failure("expected \(Character(UnicodeScalar(byte)))") }
            index += 1
        }

        private func failure(_ what: String) -> StoreError {
            StoreError(.invalidInput, "a logged row image is not a JSON object (\(what) at byte \(index))")
        }

        private mutating func token() throws -> Token {
            switch peek {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "{"), UInt8(ascii: "["): return .structured(try structured())
            default:
                let start = index
                while let byte = peek, byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || (byte >= 0x30 && byte <= 0x39)
                {
                    index += 1
                }
                guard index > start else { throw failure("unexpected byte") }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        private mutating func literal(_ word: String) throws {
            let utf8 = Array(word.utf8)
            guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
                throw failure("expected \(word)")
            }
            index += utf8.count
        }

        /// A nested object or array, skipped over (strings inside included) and returned as written.
        private mutating func structured() throws -> String {
            let start = index
            var depth = 0
            repeat {
                guard let byte = peek else { throw failure("unterminated value") }
                switch byte {
                case UInt8(ascii: "\""):
                    _ = try string()
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                index += 1
            } while depth > 0
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            var output: [UInt8] = []
            while true {
                guard let byte = peek else { throw failure("unterminated string") }
                index += 1
                if byte == UInt8(ascii: "\"") { break }
                guard byte == UInt8(ascii: "\\") else {
                    output.append(byte)
                    continue
                }
                guard let escaped = peek else { throw failure("unterminated escape") }
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), peek == UInt8(ascii: "\\"), index + 1 < bytes.count,
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try hex4()
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    output.append(contentsOf: Array(String(UnicodeScalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
                default: output.append(escaped)
                }
            }
            return String(decoding: output, as: UTF8.self)
        }

        private mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw failure("bad \\u escape") }
            index += 4
            return value
        }
    }
}
#endif
