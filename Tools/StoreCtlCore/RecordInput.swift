import Foundation
import ObservableStore

/// Where records come from: a JSON object or array given as the argument, a file, or stdin, read in blocks
/// (``InputBuffer``) by a reader for its format, so that memory does not grow with the input.
struct RecordInput {
    enum Format: String, CaseIterable {
        case json, ndjson, csv
    }

    /// Where the input came from, for messages: "stdin", the file's path, or "argument".
    let source: String
    /// The bytes, for progress: how many were read and, for a regular file, how many there are.
    let buffer: InputBuffer
    /// Reads the records one at a time.
    let reader: any RecordReader

    /// Opens `argument` ("-" for stdin, a JSON text, or a file path) in `format` (guessed when nil: by the
    /// file's extension, else by the first bytes).
    static func open(_ argument: String, format: Format?, table: TableInfo) throws -> RecordInput {
        let trimmed = argument.drop { $0.isWhitespace }
        if argument == "-" {
            return try RecordInput(
                source: "stdin", buffer: InputBuffer(descriptor: STDIN_FILENO, closesDescriptor: false), format: format,
                formatHint: "", table: table)
        }
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
            return try RecordInput(
                source: "argument", buffer: InputBuffer(data: Data(argument.utf8)), format: format, formatHint: "", table: table)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
            throw StoreError(.notFound, "input file \(argument) not found")
        }
        let descriptor = Foundation.open(argument, O_RDONLY)
        guard !isDirectory.boolValue, descriptor >= 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw CLIError.usage("\(argument) is not a readable file")
        }
        return try RecordInput(
            source: argument, buffer: InputBuffer(descriptor: descriptor, closesDescriptor: true), format: format,
            formatHint: argument, table: table)
    }

    /// Reads `data` (UTF-8 text from `source`) in `format`, guessed from the text when nil.
    static func reading(_ data: Data, source: String, format: Format?, table: TableInfo) throws -> RecordInput {
        try RecordInput(source: source, buffer: InputBuffer(data: data), format: format, formatHint: "", table: table)
    }

    private init(source: String, buffer: InputBuffer, format: Format?, formatHint: String, table: TableInfo) throws {
        self.source = source
        self.buffer = buffer
        switch try format ?? Self.guess(formatHint, buffer) {
        case .csv: reader = CSVRecordReader(input: buffer, source: source, table: table)
        case .json: reader = JSONRecordReader(input: buffer, source: source, table: table, isNDJSON: false)
        case .ndjson: reader = JSONRecordReader(input: buffer, source: source, table: table, isNDJSON: true)
        }
    }

    /// The error for bad input on `line` of `source`.
    static func invalid(_ source: String, _ line: Int, _ message: String) -> StoreError {
        StoreError(.invalidInput, "\(source) line \(line): \(message)")
    }

    /// The format by the file name's extension, else by the first bytes: `[` is JSON; `{` is NDJSON when the
    /// first line holds a whole JSON value, else one JSON object over several lines; nothing is NDJSON; anything
    /// else is CSV.
    private static func guess(_ fileName: String, _ buffer: InputBuffer) throws -> Format {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".ndjson") || lower.hasSuffix(".jsonl") { return .ndjson }
        var first = 0  // nothing is consumed while guessing: `buffer.position` stays 0
        while true {
            if let found = buffer.bytes[first...].firstIndex(where: { !(" \t\r\n".utf8.contains($0)) }) {
                first = found
                break
            }
            first = buffer.bytes.count
            guard try buffer.readMore() else { return .ndjson }
        }
        switch buffer.bytes[first] {
        case UInt8(ascii: "["): return .json
        case UInt8(ascii: "{"):
            // Nothing is consumed while guessing, so indexes stay valid across reads.
            var lineEnd = buffer.bytes[first...].firstIndex(of: 0x0A)
            while lineEnd == nil, buffer.bytes.count < 16 * InputBuffer.blockSize, try buffer.readMore() {
                lineEnd = buffer.bytes[first...].firstIndex(of: 0x0A)
            }
            var parser = JSONParser(bytes: buffer.bytes, range: first..<(lineEnd ?? buffer.bytes.count))
            guard (try? parser.value(depth: 0)) != nil else { return .json }
            parser.skipWhitespace()
            return parser.isAtEnd ? .ndjson : .json
        default: return .csv
        }
    }
}
