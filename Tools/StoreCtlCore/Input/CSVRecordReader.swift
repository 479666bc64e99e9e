import ObservableStore

/// Reads CSV records as they come (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks;
/// CR LF or LF line ends). The first row names the columns; each field is converted by its column's type as
/// ``ValueText`` converts it (an empty field is NULL except in a TEXT column).
final class CSVRecordReader: RecordReader {
    private let input: InputBuffer
    private let source: String
    private let table: TableInfo
    /// The header's columns (indexes into the table's), read with the first row.
    private var columns: [Int]?
    /// The line at `input.position`.
    private var line = 1
    /// The current row's fields, as ranges of `input.bytes`, and the index where the row starts.
    private var fields: [Field] = []
    private var rowStart = 0

    private struct Field {
        var range: Range<Int>
        var quoted: Bool
        /// Whether the bytes need work before they are the value: a doubled quote, or a CR outside quotes.
        var needsCleaning: Bool
    }

    /// A row's extent in `input.bytes`: its end (after its LF) and how many lines it spans.
    private struct RowExtent {
        var end: Int
        var lines: Int
    }

    init(input: InputBuffer, source: String, table: TableInfo) {
        self.input = input
        self.source = source
        self.table = table
    }

    func next(into record: inout InputRecord) throws -> Bool {
        guard let columns = try columns ?? readHeader() else { return false }
        while let rowLine = try readRow() {
            if fields.count == 1, fields[0].range.isEmpty { continue }  // a blank line
            guard fields.count == columns.count else {
                throw RecordInput.invalid(source, rowLine, "expected \(columns.count) fields, found \(fields.count)")
            }
            record.start(line: rowLine)
            for (field, column) in zip(fields, columns) {
                let text = try self.text(of: field, rowLine: rowLine)
                do {
                    record.values.append(try ValueText.parse(text, for: table.columns[column], table: table.name, nullIfEmpty: true))
                } catch let error as StoreError {
                    throw RecordInput.invalid(source, rowLine, error.message)
                }
                record.columns.append(column)
            }
            return true
        }
        return false
    }

    /// Reads the header row; nil for an input without rows.
    private func readHeader() throws -> [Int]? {
        if input.bytes.count < 3, !input.isAtEnd { _ = try input.readMore() }
        if input.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { input.position = 3 }  // a byte order mark
        var headerLine = line
        repeat {
            headerLine = line
            guard try readRow() != nil else { return nil }
        } while fields.count == 1 && fields[0].range.isEmpty
        var indexes: [Int] = []
        for field in fields {
            let name = try text(of: field, rowLine: headerLine)
            guard let index = table.columns.firstIndex(where: { $0.name == name }) else {
                throw RecordInput.invalid(source, headerLine, "unknown column '\(name)' in \(table.name)")
            }
            guard !indexes.contains(index) else { throw RecordInput.invalid(source, headerLine, "column '\(name)' appears twice") }
            indexes.append(index)
        }
        columns = indexes
        return indexes
    }

    /// Reads the row at `input.position` into `fields` and returns the line it starts on; nil at the end of the input.
    private func readRow() throws -> Int? {
        while true {
            let scanned = try input.bytes.withUnsafeBufferPointer { bytes in
                try scanRow(bytes, from: input.position, isAtEnd: input.isAtEnd)
            }
            if let scanned {
                let rowLine = line
                line += scanned.lines
                rowStart = input.position
                input.position = scanned.end
                return rowLine
            }
            if input.isAtEnd { return nil }
            _ = try input.readMore()
        }
    }

    /// Finds the fields of the row starting at `start`; nil when the bytes read so far end inside it (or there
    /// are none left).
    private func scanRow(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isAtEnd: Bool) throws -> RowExtent? {
        fields.removeAll(keepingCapacity: true)
        guard start < bytes.count else { return nil }
        var index = start
        var fieldStart = start
        var inQuotes = false
        var quoted = false
        var afterQuote = false
        var needsCleaning = false
        var contentEnd = start
        var lines = 0
        var lineStart = start
        func syntaxError(_ message: String) -> StoreError {
            RecordInput.invalid(source, line + lines, "\(message) at column \(index - lineStart + 1)")
        }
        func endField(at end: Int) {
            var range = quoted ? fieldStart + 1..<contentEnd : fieldStart..<end
            // The CR of a CR LF line end belongs to no field.
            if !quoted, !range.isEmpty, bytes[range.upperBound - 1] == 0x0D {
                range = range.lowerBound..<range.upperBound - 1
                needsCleaning = bytes[range].contains(0x0D)
            }
            fields.append(Field(range: range, quoted: quoted, needsCleaning: needsCleaning))
        }
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        needsCleaning = true
                        index += 2
                        continue
                    }
                    if index + 1 == bytes.count, !isAtEnd { return nil }  // a doubled quote cut by the block?
                    inQuotes = false
                    afterQuote = true
                    contentEnd = index
                } else if byte == 0x0A {
                    lines += 1
                    lineStart = index + 1
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                endField(at: index)
                index += 1
                fieldStart = index
                (quoted, afterQuote, needsCleaning) = (false, false, false)
                continue
            case 0x0A:
                endField(at: index)
                return RowExtent(end: index + 1, lines: lines + 1)
            case 0x0D:
                if !afterQuote { needsCleaning = true }
            case UInt8(ascii: "\""):
                guard index == fieldStart, !afterQuote else { throw syntaxError("stray '\"' inside an unquoted field") }
                inQuotes = true
                quoted = true
            default:
                guard !afterQuote else { throw syntaxError("text after a closing quote") }
            }
            index += 1
        }
        guard isAtEnd else { return nil }
        guard !inQuotes else {
            throw RecordInput.invalid(source, line, "unterminated quoted field (it starts at column \(fieldStart - start + 1))")
        }
        endField(at: index)
        return RowExtent(end: index, lines: lines)
    }

    /// The text of `field`: its bytes without the quotes, doubled quotes made single, CRs outside quotes left out.
    /// Invalid UTF-8 throws, naming the line and column of the first invalid byte.
    private func text(of field: Field, rowLine: Int) throws -> String {
        let bytes = input.bytes[field.range]
        if !field.needsCleaning, let text = UTF8Text.string(bytes) { return text }
        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if field.quoted, byte == UInt8(ascii: "\""), index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") {
                index += 1
            } else if !field.quoted, byte == 0x0D {
                continue
            }
            cleaned.append(byte)
        }
        if let text = UTF8Text.string(cleaned[...]) { return text }
        throw invalidUTF8(in: field, rowLine: rowLine)
    }

    /// The error for the first byte of `field` that is not valid UTF-8, with its line and column.
    private func invalidUTF8(in field: Field, rowLine: Int) -> StoreError {
        let bytes = input.bytes
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[field.range].makeIterator()
        var bad = field.range.lowerBound
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { bad += scalar.count }
        let before = bytes[rowStart..<bad]
        let badLine = rowLine + before.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        let start = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? rowStart
        return RecordInput.invalid(source, badLine, "invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true))) at column \(bad - start + 1)")
    }
}
