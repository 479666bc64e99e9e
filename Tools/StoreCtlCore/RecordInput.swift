import Foundation
import ObservableStore

/// Records to insert, read from a JSON object, a JSON array, NDJSON or CSV, each with the input line
/// it came from, and checked against the table's columns.
struct RecordInput {
    struct Record {
        var line: Int
        var columns: [String]
        var values: [DatabaseValue]
    }

    enum Format: String, CaseIterable {
        case json, ndjson, csv
    }

    /// Where the input came from, for messages: "stdin", the file's path, or "argument".
    let source: String
    let records: [Record]

    /// Reads `argument` ("-" for stdin, a JSON text, or a file path) in `format` (guessed when nil).
    static func read(_ argument: String, format: Format?, table: TableInfo) throws -> RecordInput {
        let (source, data): (String, Data)
        let trimmed = argument.drop { $0.isWhitespace }
        if argument == "-" {
            source = "stdin"
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
            source = "argument"
            data = Data(argument.utf8)
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                throw StoreError(.notFound, "input file \(argument) not found")
            }
            guard !isDirectory.boolValue, let contents = FileManager.default.contents(atPath: argument) else {
                throw CLIError.usage("\(argument) is not a readable file")
            }
            source = argument
            data = contents
        }
        return try parse(data, source: source, format: format, formatHint: argument, table: table)
    }

    /// Parses `data` (UTF-8 text from `source`) in `format`, guessed from `formatHint` (a file name) and the
    /// text when nil. Invalid UTF-8 is refused, naming its line: storing U+FFFD instead would change the data.
    static func parse(_ data: Data, source: String, format: Format?, formatHint: String = "", table: TableInfo) throws
        -> RecordInput
    {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw invalid(source, lineOfFirstInvalidUTF8(data), "the input is not valid UTF-8")
        }
        let chosen = format ?? guess(argument: formatHint, text: text)
        let records: [Record]
        switch chosen {
        case .csv: records = try csv(text, source: source, table: table)
        case .json, .ndjson: records = try json(text, source: source, format: chosen, table: table)
        }
        return RecordInput(source: source, records: records)
    }

    /// The 1-based line holding the first byte that does not start a valid UTF-8 sequence.
    private static func lineOfFirstInvalidUTF8(_ data: Data) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var line = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): if scalar.count == 1, scalar.first == 0x0A { line += 1 }
            case .emptyInput, .error: return line
            }
        }
    }

    private static func guess(argument: String, text: String) -> Format {
        let lower = argument.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".ndjson") || lower.hasSuffix(".jsonl") { return .ndjson }
        let start = text.drop { $0.isWhitespace }
        if start.hasPrefix("[") { return .json }
        if start.hasPrefix("{") {
            // One object over several lines, or one object per line?
            return (try? JSONParser.parse(text)) != nil ? .json : .ndjson
        }
        return start.isEmpty ? .ndjson : .csv
    }

    private static func invalid(_ source: String, _ line: Int, _ message: String) -> StoreError {
        StoreError(.invalidInput, "\(source) line \(line): \(message); nothing was written")
    }

    private static func json(_ text: String, source: String, format: Format, table: TableInfo) throws -> [Record] {
        var objects: [(line: Int, value: JSONValue)] = []
        if format == .ndjson {
            // Split at LF scalars: in a String, CR LF is one Character, which a Character split would miss.
            for (offset, line) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let content = String(String.UnicodeScalarView(line.last == "\r" ? line.dropLast() : line))
                guard !content.allSatisfy(\.isWhitespace) else { continue }
                do {
                    objects.append((offset + 1, try JSONParser.parse(content, firstLine: offset + 1)))
                } catch {
                    throw invalid(source, offset + 1, "\(error.message) at column \(error.column)")
                }
            }
        } else {
            var parser = JSONParser(text)
            do {
                parser.skipWhitespace()
                let line = parser.currentLine
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.isAtEnd else { throw parser.failure("unexpected text after the JSON value") }
                if case .array(let items) = value {
                    objects = try elementsWithLines(text, count: items.count).enumerated().map { ($1, items[$0]) }
                } else {
                    objects = [(line, value)]
                }
            } catch let error as JSONParser.Failure {
                throw invalid(source, error.line, "\(error.message) at column \(error.column)")
            }
        }
        return try objects.map { line, value in
            guard case .object(let members) = value else { throw invalid(source, line, "expected a JSON object") }
            return try record(members, line: line, source: source, table: table)
        }
    }

    /// The line on which each element of a top-level JSON array starts (line 1 for all if unsure).
    private static func elementsWithLines(_ text: String, count: Int) throws -> [Int] {
        let lines = ArrayScanner(text: text).elementLines()
        return lines.count == count ? lines : Array(repeating: 1, count: count)
    }

    private static func record(_ members: [(String, JSONValue)], line: Int, source: String, table: TableInfo) throws -> Record {
        var columns: [String] = []
        var values: [DatabaseValue] = []
        for (key, value) in members {
            guard let column = table.column(named: key) else {
                throw invalid(source, line, "unknown column '\(key)' in \(table.name)")
            }
            guard !columns.contains(key) else { throw invalid(source, line, "column '\(key)' appears twice") }
            columns.append(key)
            values.append(try convert(value, for: column, line: line, source: source, table: table))
        }
        return Record(line: line, columns: columns, values: values)
    }

    private static func convert(
        _ value: JSONValue, for column: TableInfo.Column, line: Int, source: String, table: TableInfo
    ) throws -> DatabaseValue {
        func wrong(_ found: String) -> StoreError {
            invalid(source, line, "column \(column.name) is \(column.type), got \(found)")
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

    private static func csv(_ text: String, source: String, table: TableInfo) throws -> [Record] {
        var rows = try CSVReader.rows(text, source: source)
        guard !rows.isEmpty else { return [] }
        let header = rows.removeFirst()
        let columns = try header.fields.map { name -> TableInfo.Column in
            guard let column = table.column(named: name) else {
                throw invalid(source, header.line, "unknown column '\(name)' in \(table.name)")
            }
            return column
        }
        if let repeated = header.fields.enumerated().first(where: { header.fields[..<$0.offset].contains($0.element) }) {
            throw invalid(source, header.line, "column '\(repeated.element)' appears twice")
        }
        return try rows.map { row in
            guard row.fields.count == columns.count else {
                throw invalid(source, row.line, "expected \(columns.count) fields, found \(row.fields.count)")
            }
            let values = try zip(row.fields, columns).map { field, column in
                do {
                    return try ValueText.parse(field, for: column, table: table.name, nullIfEmpty: true)
                } catch let error as StoreError {
                    throw invalid(source, row.line, error.message)
                }
            }
            return Record(line: row.line, columns: columns.map(\.name), values: values)
        }
    }
}

/// Finds the starting line of each element of a top-level JSON array without building values.
private struct ArrayScanner {
    let bytes: [UInt8]
    init(text: String) { bytes = Array(text.utf8) }

    func elementLines() -> [Int] {
        var lines: [Int] = []
        var line = 1
        var depth = 0
        var inString = false
        var escaped = false
        var expectingElement = false
        for byte in bytes {
            if byte == 0x0A { line += 1 }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            let isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
            if expectingElement && !isSpace && byte != UInt8(ascii: "]") {
                lines.append(line)
                expectingElement = false
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth == 1 && byte == UInt8(ascii: "[") { expectingElement = true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { expectingElement = true }
            default: break
            }
        }
        return lines
    }
}

/// RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks.
enum CSVReader {
    struct Row {
        var line: Int
        var fields: [String]
    }

    static func rows(_ text: String, source: String) throws -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var line = 1
        var rowLine = 1
        var afterQuote = false
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var index = 0
        func endRow() {
            fields.append(field)
            field = ""
            if !(fields.count == 1 && fields[0].isEmpty) { rows.append(Row(line: rowLine, fields: fields)) }
            fields = []
        }
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if inQuotes {
                if scalar == "\"" {
                    if index < scalars.count, scalars[index] == "\"" {
                        field.unicodeScalars.append("\"")
                        index += 1
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                fields.append(field)
                field = ""
                afterQuote = false
            case "\r":
                continue
            case "\n":
                endRow()
                line += 1
                rowLine = line
                afterQuote = false
            case "\"":
                guard field.isEmpty, !afterQuote else {
                    throw StoreError(.invalidInput, "\(source) line \(line): stray '\"' inside an unquoted field; nothing was written")
                }
                inQuotes = true
            default:
                guard !afterQuote else {
                    throw StoreError(.invalidInput, "\(source) line \(line): text after a closing quote; nothing was written")
                }
                field.unicodeScalars.append(scalar)
            }
        }
        guard !inQuotes else {
            throw StoreError(.invalidInput, "\(source) line \(rowLine): unterminated quoted field; nothing was written")
        }
        if !field.isEmpty || !fields.isEmpty { endRow() }
        return rows
    }
}
