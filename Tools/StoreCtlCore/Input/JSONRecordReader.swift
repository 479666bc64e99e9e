import Foundation
import ObservableStore

/// Reads JSON records as they come: NDJSON one line at a time, or one JSON text (an array of objects, element
/// by element, or a single object). Each object's members go straight into the record as column values.
final class JSONRecordReader: RecordReader {
    private let input: InputBuffer
    private let source: String
    private let table: TableInfo
    private let isNDJSON: Bool
    private let columnIndexes: [String: Int]
    /// Each column's name as UTF-8, in column order (the first of two equal names wins, as in ``columnIndexes``).
    private let columnNameBytes: [[UInt8]]
    /// The line of `input.position`, and the stream offset where that line starts (for columns).
    private var line = 1
    private var lineStartOffset = 0
    private var state = State.start

    /// Where a JSON text is between records.
    private enum State {
        case start, firstElement, afterElement, done
    }

    init(input: InputBuffer, source: String, table: TableInfo, isNDJSON: Bool) {
        self.input = input
        self.source = source
        self.table = table
        self.isNDJSON = isNDJSON
        columnIndexes = Dictionary(table.columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        columnNameBytes = table.columns.map { Array($0.name.utf8) }
    }

    func next(into record: inout InputRecord) throws -> Bool {
        isNDJSON ? try nextLine(into: &record) : try nextElement(into: &record)
    }

    // MARK: - NDJSON

    private func nextLine(into record: inout InputRecord) throws -> Bool {
        while let lineEnd = try endOfLine() {
            let start = input.position
            var contentEnd = lineEnd
            if contentEnd > start, input.bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let number = line
            line += 1
            defer { input.position = min(lineEnd + 1, input.bytes.count) }
            guard input.bytes[start..<contentEnd].contains(where: { !Self.isWhitespace($0) }) else { continue }
            try read(start..<contentEnd, line: number, lineStart: start, into: &record)
            return true
        }
        return false
    }

    /// The index of the LF that ends the line at `input.position` (the end of the bytes for a last line without
    /// one), reading more input as needed; nil when no bytes are left.
    private func endOfLine() throws -> Int? {
        var searched = input.position
        while true {
            let found = input.bytes.withUnsafeBufferPointer { buffer -> Int? in
                guard searched < buffer.count, let base = buffer.baseAddress,
                    let hit = memchr(base + searched, 0x0A, buffer.count - searched)
                else { return nil }
                return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            if let found { return found }
            let scannedPastPosition = input.bytes.count - input.position
            guard try input.readMore() else { return input.position < input.bytes.count ? input.bytes.count : nil }
            searched = input.position + scannedPastPosition
        }
    }

    // MARK: - One JSON text

    private func nextElement(into record: inout InputRecord) throws -> Bool {
        switch state {
        case .done:
            return false
        case .start:
            try skipWhitespace()
            if try peek() == UInt8(ascii: "[") {
                input.position += 1
                state = .firstElement
                return try nextElement(into: &record)
            }
            try readValue(into: &record)
            try finish()
            return true
        case .firstElement:
            try skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                input.position += 1
                try finish()
                return false
            }
        case .afterElement:
            try skipWhitespace()
            let byte = try peek()
            if byte == UInt8(ascii: "]") {
                input.position += 1
                try finish()
                return false
            }
            guard byte == UInt8(ascii: ",") else { throw syntaxError("expected ',' or ']', found \(JSONParser.describe(byte))") }
            input.position += 1
            try skipWhitespace()
        }
        try readValue(into: &record)
        state = .afterElement
        return true
    }

    /// After the JSON text: only white space may follow.
    private func finish() throws {
        state = .done
        try skipWhitespace()
        if let byte = try peek() {
            throw syntaxError("unexpected text after the JSON value (\(JSONParser.describe(byte)))")
        }
    }

    /// Reads the value at `input.position` (an array element or the whole text) into `record`.
    private func readValue(into record: inout InputRecord) throws {
        var end = valueEnd(from: input.position)
        while end == nil {
            guard try input.readMore() else { break }
            end = valueEnd(from: input.position)
        }
        let range = input.position..<(end ?? input.bytes.count)
        let after = try read(range, line: line, lineStart: lineStartOffset - input.dropped, into: &record)
        line = after.line
        lineStartOffset = input.offset(of: after.lineStart)
        input.position = range.upperBound
    }

    /// The index just after the JSON value that starts at `start` (found without parsing it: brackets and
    /// strings only), or nil when the bytes read so far end inside it.
    private func valueEnd(from start: Int) -> Int? {
        input.bytes.withUnsafeBufferPointer { bytes -> Int? in
            guard start < bytes.count else { return nil }
            var index = start
            switch bytes[start] {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
                var depth = 0
                var inString = false
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    if inString {
                        if byte == UInt8(ascii: "\\") {
                            index += 1
                        } else if byte == UInt8(ascii: "\"") {
                            inString = false
                            if depth == 0 { return index }
                        }
                        continue
                    }
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth <= 0 { return index }
                    default: break
                    }
                }
                return nil
            default:
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D:
                        return max(index, start + 1)  // a delimiter where a value belongs: the parser names it
                    default: index += 1
                    }
                }
                return nil
            }
        }
    }

    private func skipWhitespace() throws {
        while true {
            while input.position < input.bytes.count {
                let byte = input.bytes[input.position]
                guard Self.isWhitespace(byte) else { return }
                input.position += 1
                if byte == 0x0A {
                    line += 1
                    lineStartOffset = input.offset(of: input.position)
                }
            }
            guard try input.readMore() else { return }
        }
    }

    /// The byte at `input.position`, reading more input if needed; nil at the end.
    private func peek() throws -> UInt8? {
        if input.position >= input.bytes.count, try !input.readMore() { return nil }
        return input.bytes[input.position]
    }

    private func syntaxError(_ message: String) -> StoreError {
        let column = input.offset(of: input.position) - lineStartOffset + 1
        return RecordInput.invalid(source, line, "\(message) at column \(column)")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    // MARK: - Objects to records

    /// Parses the object in `input.bytes[range]`, which starts on `line`, into `record`; returns the line and the
    /// index of its start where the object ends.
    @discardableResult
    private func read(_ range: Range<Int>, line: Int, lineStart: Int, into record: inout InputRecord) throws
        -> (line: Int, lineStart: Int)
    {
        var parser = JSONParser(bytes: input.bytes, range: range, firstLine: line, lineStart: lineStart)
        record.start(line: line)
        do {
            parser.skipWhitespace()
            if parser.nextByte == UInt8(ascii: "{") {
                var problem: StoreError?
                try parser.members(depth: 0, knownKey: column(named:)) { column, key, value in
                    do throws(StoreError) {
                        try add(column, key, value, to: &record)
                        return true
                    } catch {
                        problem = error
                        return false
                    }
                }
                if let problem { throw problem }
            } else {
                _ = try parser.value(depth: 0)
            }
            parser.skipWhitespace()
            guard parser.isAtEnd else {
                throw parser.failure(
                    isNDJSON ? "unexpected text after the JSON value" : "expected ',' or ']', found \(JSONParser.describe(parser.nextByte))")
            }
        } catch let failure as JSONParser.Failure {
            throw RecordInput.invalid(source, isNDJSON ? line : failure.line, "\(failure.message) at column \(failure.column)")
        }
        guard input.bytes[range].first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "{") else {
            throw RecordInput.invalid(source, line, "expected a JSON object")
        }
        return (parser.currentLine, parser.lineStart)
    }

    /// The number of the column whose name is exactly `bytes` (as ``columnIndexes`` matches names), or nil.
    private func column(named bytes: ArraySlice<UInt8>) -> Int? {
        columnNameBytes.firstIndex { $0.count == bytes.count && $0.elementsEqual(bytes) }
    }

    /// Adds a member to `record`: its column's number when the parser matched it (``column(named:)``), else its
    /// key as text.
    private func add(_ column: Int?, _ key: String?, _ value: JSONValue, to record: inout InputRecord) throws(StoreError) {
        guard let index = column ?? key.flatMap({ columnIndexes[$0] }) else {
            throw RecordInput.invalid(source, record.line, "unknown column '\(key ?? "")' in \(table.name)")
        }
        guard !record.columns.contains(index) else {
            throw RecordInput.invalid(source, record.line, "column '\(table.columns[index].name)' appears twice")
        }
        record.columns.append(index)
        record.values.append(try convert(value, for: table.columns[index], line: record.line))
    }

    /// `value` as a value of `column`, by its type: integers exact, reals finite, nested JSON as text.
    private func convert(_ value: JSONValue, for column: TableInfo.Column, line: Int) throws(StoreError) -> DatabaseValue {
        func wrong(_ found: String) -> StoreError {
            RecordInput.invalid(source, line, "column \(column.name) is \(column.type), got \(found)")
        }
        switch (value, column.affinity) {
        case (.null, _): return .null
        case (.bool(let flag), "INTEGER"), (.bool(let flag), "NUMERIC"), (.bool(let flag), "ANY"): return .integer(flag ? 1 : 0)
        case (.bool, _): throw wrong("a boolean")
        case (.number(let text), "INTEGER"):
            if let integer = Int64(text) { return .integer(integer) }
            if let real = Double(text), real == real.rounded(), let integer = Int64(exactly: real) { return .integer(integer) }
            throw wrong("\(text)")
        case (.number(let text), "REAL"), (.number(let text), "NUMERIC"), (.number(let text), "ANY"):
            if column.affinity != "REAL", let integer = Int64(text) { return .integer(integer) }
            guard let real = Double(text), real.isFinite else { throw wrong("\(text)") }
            return .real(real)
        case (.number, _): throw wrong("a number")
        case (.string(let text), "TEXT"), (.string(let text), "ANY"), (.string(let text), "NUMERIC"): return .text(text)
        case (.string, _): throw wrong("a string")
        case (.object(let members), "BLOB"):
            guard members.count == 1, members[0].0 == "$base64", case .string(let encoded) = members[0].1,
                let data = Data(base64Encoded: encoded)
            else { throw wrong("an object (BLOB values are {\"$base64\":\"…\"})") }
            return .blob(data)
        case (.object, "TEXT"), (.array, "TEXT"): return .text(value.compactText)
        case (.object, _): throw wrong("an object")
        case (.array, _): throw wrong("an array")
        }
    }
}
