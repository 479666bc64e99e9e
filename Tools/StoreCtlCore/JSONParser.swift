import Foundation
import ObservableStore

/// A JSON value, objects keeping their key order. Only the containers are `indirect`: scalars
/// cost no allocation.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's text, so that integers stay exact and reals stay reals.
    case number(String)
    case string(String)
    indirect case array([JSONValue])
    indirect case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Compact JSON text of the value (how a nested value is stored in a TEXT column).
    var compactText: String {
        switch self {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let text): text
        case .string(let text): JSONText.string(text)
        case .array(let items): "[" + items.map(\.compactText).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONText.string($0.0) + ":" + $0.1.compactText }.joined(separator: ",") + "}"
        }
    }
}

/// A strict JSON parser (RFC 8259) that reports where input goes wrong: line and column, 1-based.
struct JSONParser {
    struct Failure: Error {
        let line: Int
        let column: Int
        let message: String
    }

    private let bytes: [UInt8]
    /// The index of the next byte to read, in `bytes`.
    private(set) var index: Int
    /// The end of the text to parse in `bytes`.
    private let end: Int
    private var line: Int
    /// The index in `bytes` where the current line starts (before `bytes`' start when the text starts mid-line).
    private(set) var lineStart: Int
    /// Nesting limit, so that hostile input cannot exhaust the stack.
    private let maximumDepth = 512

    init(_ text: String, firstLine: Int = 1) {
        self.init(bytes: Array(text.utf8), firstLine: firstLine)
    }

    /// Parses `bytes[range]` (all of `bytes` when nil), which starts on line `firstLine`, whose first byte is at
    /// index `lineStart` (columns count from there).
    init(bytes: [UInt8], range: Range<Int>? = nil, firstLine: Int = 1, lineStart: Int? = nil) {
        self.bytes = bytes
        index = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
        line = firstLine
        self.lineStart = lineStart ?? index
    }

    /// The line the parser is on (after leading white space when called before a value).
    var currentLine: Int { line }
    var isAtEnd: Bool { index >= end }
    /// The byte at the parser's position, nil at the end.
    var nextByte: UInt8? { index < end ? bytes[index] : nil }

    /// Parses exactly one value; only white space may follow.
    static func parse(_ text: String, firstLine: Int = 1) throws(Failure) -> JSONValue {
        var parser = JSONParser(text, firstLine: firstLine)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.isAtEnd else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < end {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    func failure(_ message: String) -> Failure {
        Failure(line: line, column: index - lineStart + 1, message: message)
    }

    private func describe() -> String {
        Self.describe(index < end ? bytes[index] : nil)
    }

    /// How a failure names the byte found: `'x'`, `byte 0xFF`, or `end of input` for nil.
    static func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "end of input" }
        return byte >= 0x20 && byte < 0x7F ? "'\(Character(UnicodeScalar(byte)))'" : String(format: "byte 0x%02X", byte)
    }

    /// Reads an object at `depth`, calling `member` with each key and value in order (the keys as written,
    /// repeats included). When `member` returns false, reading stops there (the caller has its own error).
    mutating func members(depth: Int, _ member: (String, JSONValue) -> Bool) throws(Failure) {
        try members(depth: depth, knownKey: nil) { _, key, value in member(key ?? "", value) }
    }

    /// ``members(depth:_:)`` for a caller that knows the keys it expects (an importer, its table's columns): a
    /// key written without escapes is first offered as its bytes to `knownKey`, which returns the key's number
    /// or nil. `member` gets that number and no text, or, for any other key, nil and the key's text. Known keys
    /// cost no `String` and no hashing.
    mutating func members(
        depth: Int, knownKey: ((ArraySlice<UInt8>) -> Int?)?, _ member: (Int?, String?, JSONValue) -> Bool
    ) throws(Failure) {
        skipWhitespace()
        guard index < end, bytes[index] == UInt8(ascii: "{") else { throw failure("expected '{', found \(describe())") }
        index += 1
        skipWhitespace()
        if index < end, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < end, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected '\"', found \(describe())") }
            var known: Int?
            var key: String?
            if let knownKey, let plain = plainKey(), let number = knownKey(bytes[plain]) {
                known = number
                index = plain.upperBound + 1  // past the closing quote
            } else {
                key = try string()
            }
            skipWhitespace()
            guard index < end, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':', found \(describe())") }
            index += 1
            guard member(known, key, try value(depth: depth + 1)) else { return }
            skipWhitespace()
            guard index < end else { throw failure("expected ',' or '}', found end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            } else {
                throw failure("expected ',' or '}', found \(describe())")
            }
        }
    }

    /// The bytes of the string at the parser's position (its opening quote) when they hold no escape and no
    /// control character, without moving; nil otherwise (``string()`` reads and checks it then).
    private func plainKey() -> Range<Int>? {
        var cursor = index + 1
        while cursor < end {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") { return (index + 1)..<cursor }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            cursor += 1
        }
        return nil
    }

    mutating func value(depth: Int) throws(Failure) -> JSONValue {
        skipWhitespace()
        guard depth < maximumDepth else { throw failure("nested too deeply") }
        guard index < end else { throw failure("expected a value, found end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a value, found \(describe())")
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(Failure) -> JSONValue {
        let expected = Array(word.utf8)
        guard index + expected.count <= end, Array(bytes[index..<index + expected.count]) == expected else {
            throw failure("expected '\(word)'")
        }
        index += expected.count
        return value
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let begin = index
            while index < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - begin
        }
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("expected a digit, found \(describe())") }
        if integerDigits > 1, bytes[index - integerDigits] == UInt8(ascii: "0") { throw failure("leading zeros are not allowed") }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("expected a digit after '.', found \(describe())") }
        }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("expected an exponent digit, found \(describe())") }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// Reads a string. Its bytes must be valid UTF-8: the failure names the column of the first invalid one.
    mutating func string() throws(Failure) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ runEnd: Int) throws(Failure) {
            guard run < runEnd else { return }
            guard let text = UTF8Text.string(bytes[run..<runEnd]) else {
                throw invalidUTF8(from: run, to: runEnd)
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if scalars.isEmpty {
                    // No escape: the common case, one validated copy.
                    guard let text = UTF8Text.string(bytes[run..<index]) else {
                        throw invalidUTF8(from: run, to: index)
                    }
                    index += 1
                    return text
                }
                try flush(index)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("control character in a string (escape it)") }
            if byte == UInt8(ascii: "\\") {
                try flush(index)
                index += 1
                guard index < end else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 2 < end, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u")
                        else { throw failure("unpaired surrogate in \\u escape") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = UnicodeScalar(code) else { throw failure("invalid \\u escape") }
                    scalars.append(scalar)
                default: throw failure("invalid escape \\\(describe())")
                }
                index += 1
                run = index
                continue
            }
            index += 1
        }
        throw failure("unterminated string")
    }

    /// The failure for the first byte of `bytes[start..<runEnd]` that does not belong to valid UTF-8.
    private mutating func invalidUTF8(from start: Int, to runEnd: Int) -> Failure {
        var valid = start
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[start..<runEnd].makeIterator()
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { valid += scalar.count }
        index = valid
        return failure("invalid UTF-8 (byte 0x\(String(bytes[valid], radix: 16, uppercase: true)))")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 < end else { throw failure("expected 4 hex digits after \\u") }
        var value: UInt32 = 0
        for offset in 1...4 {
            guard let digit = Character(UnicodeScalar(bytes[index + offset])).hexDigitValue else {
                throw failure("expected 4 hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < end, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < end else { throw failure("expected ',' or ']', found end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            } else {
                throw failure("expected ',' or ']', found \(describe())")
            }
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        var members: [(String, JSONValue)] = []
        try self.members(depth: depth) { key, value in
            members.append((key, value))
            return true
        }
        return .object(members)
    }
}
