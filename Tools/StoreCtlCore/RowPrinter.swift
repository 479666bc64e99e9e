import Foundation
import ObservableStore

/// Prints rows in one of storectl's formats as they come, through an ``OutputBuffer``: nothing is kept per row,
/// so memory does not grow with the output (STORECTL.md C.1's formats, docs/STORECTL.md).
///
/// - `ndjson`: one object per line, keys in column order.
/// - `json`: one array, `[` first, the objects separated by `,` and a line break, `]` last.
/// - `csv`: a header line, then one line per row (RFC 4180 quoting).
/// - `table`: column widths come from the header and the first ``tableSampleRows`` rows; a later, wider cell
///   widens its own line only (nothing is cut). Up to that many rows, the table is exactly as wide as its content.
///
/// The column names are the first row's; ``finish(columnsIfEmpty:)`` says which to use when there was none.
final class RowPrinter {
    /// How many rows a table holds back to choose its column widths.
    static let tableSampleRows = 1000

    private let format: OutputFormat
    private let color: Bool
    private let out = OutputBuffer()
    private var columns: [String]?
    /// For each column, what comes before its value in a JSON object: `{"name":` or `,"name":`.
    private var keyPrefixes: [[UInt8]] = []
    private var printed = 0
    /// A table's cells held back until its widths are known (``tableSampleRows``).
    private var heldCells: [[String]] = []
    /// A table's column widths, once chosen.
    private var widths: [Int]?
    /// Whether a record was printed as an object (``printObject(_:)``): json has no array then.
    private var printedObject = false
    /// The progress line of a long export, if any.
    private let progress: ProgressMeter?

    init(format: OutputFormat, color: Bool, progress: ProgressMeter? = nil) {
        self.format = format
        self.color = color
        self.progress = progress
    }

    /// Prints one row (the first also decides the column names).
    func print(_ row: some RowCells) {
        if columns == nil { start(row.columnNames) }
        switch format {
        case .ndjson:
            appendObject(row)
            out.append(UInt8(ascii: "\n"))
        case .json:
            if printed > 0 { CellBytes.appendASCII(",\n", to: out) }
            appendObject(row)
        case .csv:
            for index in 0..<row.cellCount {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                CellBytes.appendCSV(row, at: index, to: out)
            }
            out.append(UInt8(ascii: "\n"))
        case .table:
            let cells = (0..<row.cellCount).map { Output.cell(row.value(at: $0)) }
            if widths == nil {
                heldCells.append(cells)
                if heldCells.count == RowPrinter.tableSampleRows { printHeldTable() }
            } else {
                appendLine(cells)
            }
        }
        printed += 1
        progress?.update(count: printed)
    }

    /// Prints one record as an object: `key  value` lines in a table, one JSON object in json and ndjson, a
    /// header and one row in csv.
    func printObject(_ row: some RowCells) {
        switch format {
        case .table:
            let names = row.columnNames
            let width = names.map(\.count).max() ?? 0
            for (index, name) in names.enumerated() where index < row.cellCount {
                out.append(name + String(repeating: " ", count: width - name.count) + "  " + Output.cell(row.value(at: index)) + "\n")
            }
        case .json, .ndjson:
            keyPrefixes = RowPrinter.keyPrefixes(row.columnNames)
            appendObject(row)
            out.append(UInt8(ascii: "\n"))
        case .csv:
            print(row)
        }
        printedObject = true
    }

    /// Ends the output (the closing `]` of json, a table's held rows) and flushes it. With no row printed,
    /// `columnsIfEmpty` names the columns of the csv header and the table's.
    func finish(columnsIfEmpty: [String]) throws {
        progress?.finish()
        if printedObject && format != .csv { return try out.flush() }
        if columns == nil { start(columnsIfEmpty) }
        switch format {
        case .json: CellBytes.appendASCII("]\n", to: out)
        case .table: if widths == nil { printHeldTable() }
        case .ndjson, .csv: break
        }
        try out.flush()
    }

    private func start(_ names: [String]) {
        columns = names
        keyPrefixes = RowPrinter.keyPrefixes(names)
        switch format {
        case .json: out.append(UInt8(ascii: "["))
        case .csv:
            for (index, name) in names.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                var name = name
                name.withUTF8 { CellBytes.appendCSVField(UnsafeRawBufferPointer($0), to: out) }
            }
            out.append(UInt8(ascii: "\n"))
        case .ndjson, .table: break
        }
    }

    /// What comes before each column's value in a JSON object: `{"name":` for the first, `,"name":` after.
    private static func keyPrefixes(_ names: [String]) -> [[UInt8]] {
        names.enumerated().map { index, name in Array(((index == 0 ? "{" : ",") + JSONText.string(name) + ":").utf8) }
    }

    /// `{"column":value,…}`, keys in column order.
    private func appendObject(_ row: some RowCells) {
        let count = min(keyPrefixes.count, row.cellCount)
        for index in 0..<count {
            out.append(keyPrefixes[index])
            CellBytes.appendJSON(row, at: index, to: out)
        }
        CellBytes.appendASCII(count == 0 ? "{}" : "}", to: out)
    }

    /// Chooses the widths from the header and the held rows, then prints them.
    private func printHeldTable() {
        let names = columns ?? []
        var widths = names.map(\.count)
        for row in heldCells {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        self.widths = widths
        let header = line(names.map { $0.uppercased() })
        out.append((color ? "\u{1B}[1m" + header + "\u{1B}[0m" : header) + "\n")
        for row in heldCells { appendLine(row) }
        heldCells = []
    }

    private func appendLine(_ cells: [String]) {
        out.append(line(cells) + "\n")
    }

    /// Cells padded with spaces to the column widths (in characters, as the widths are counted), two spaces
    /// apart, without white space at either end. A cell wider than its column (after the held rows) is printed whole.
    private func line(_ cells: [String]) -> String {
        var line = ""
        for (index, (cell, width)) in zip(cells, widths ?? []).enumerated() {
            if index > 0 { line += "  " }
            line += cell
            let count = cell.count
            if count < width { line += String(repeating: " ", count: width - count) }
        }
        return RowPrinter.trimmingWhitespace(line)
    }

    /// `text` without white space (`CharacterSet.whitespaces`: tab and the space separators) at either end.
    private static func trimmingWhitespace(_ text: String) -> String {
        func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || (scalar.value >= 0x80 && scalar.properties.generalCategory == .spaceSeparator)
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isWhitespace($0) })!
        guard first != scalars.startIndex || scalars.index(after: last) != scalars.endIndex else { return text }
        return String(scalars[first...last])
    }
}
