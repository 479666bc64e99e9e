import Foundation
import ObservableStore

/// Writes command results to stdout in the chosen format. Data only: messages go to stderr.
struct Output {
    let format: OutputFormat
    let color: Bool
    let quiet: Bool

    /// Rows of values under column names: a table, a JSON array, NDJSON lines or CSV.
    func rows(_ columns: [String], _ rows: [[DatabaseValue]]) throws {
        let printer = rowPrinter()
        for values in rows { printer.print(ValueRow(columnNames: columns, values: values)) }
        try printer.finish(columnsIfEmpty: columns)
    }

    /// One object (`get`, `info`): key-value lines in a table, one JSON object otherwise.
    func object(_ columns: [String], _ values: [DatabaseValue]) throws {
        let printer = rowPrinter()
        printer.printObject(ValueRow(columnNames: columns, values: values))
        try printer.finish(columnsIfEmpty: columns)
    }

    /// A printer that streams rows to stdout in this format (for output too large to hold: `list`, `query`);
    /// with `progress`, it shows a progress line on stderr for a long export (``ProgressMeter``).
    func rowPrinter(progress: Bool = false) -> RowPrinter {
        RowPrinter(format: format, color: color, progress: progress ? ProgressMeter(noun: "rows", quiet: quiet, exporting: true) : nil)
    }

    /// Raw text (e.g. `schema --sql`).
    func text(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// A value as a table cell: control characters escaped, blobs summarised.
    static func cell(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): String(integer)
        case .real(let real): JSONText.number(real)
        case .text(let text):
            text.utf8.contains(where: { $0 < 0x20 })
                ? text.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined() : text
        case .blob(let data): "<blob \(data.count) bytes>"
        }
    }

    static func csvCell(_ value: DatabaseValue) -> String {
        switch value {
        case .null: ""
        case .integer(let integer): String(integer)
        case .real(let real): JSONText.number(real)
        case .text(let text): text
        case .blob(let data): data.base64EncodedString()
        }
    }
}

/// RFC 4180 fields.
enum CSVText {
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
