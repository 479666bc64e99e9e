import Foundation
import ObservableStore

/// Writes command results to stdout in the chosen format. Data only: messages go to stderr.
struct Output {
    let format: OutputFormat
    let color: Bool
    let quiet: Bool

    /// Rows of values under column names: a table, a JSON array, NDJSON lines or CSV.
    func rows(_ columns: [String], _ rows: [[DatabaseValue]]) {
        switch format {
        case .table: printTable(columns, rows.map { $0.map(Output.cell) })
        case .json: write("[" + rows.map { JSONText.object(columns, $0) }.joined(separator: ",\n") + "]\n")
        case .ndjson: for row in rows { write(JSONText.object(columns, row) + "\n") }
        case .csv:
            write(columns.map(CSVText.field).joined(separator: ",") + "\n")
            for row in rows { write(row.map { CSVText.field(Output.csvCell($0)) }.joined(separator: ",") + "\n") }
        }
    }

    /// One object (`get`, `info`): key-value lines in a table, one JSON object otherwise.
    func object(_ columns: [String], _ values: [DatabaseValue]) {
        switch format {
        case .table:
            let width = columns.map(\.count).max() ?? 0
            for (column, value) in zip(columns, values) {
                write(column.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + Output.cell(value) + "\n")
            }
        case .json, .ndjson: write(JSONText.object(columns, values) + "\n")
        case .csv: rows(columns, [values])
        }
    }

    /// Raw text (e.g. `schema --sql`).
    func text(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func printTable(_ columns: [String], _ rows: [[String]]) {
        var widths = columns.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        let header = line(columns.map { $0.uppercased() })
        write((color ? "\u{1B}[1m" + header + "\u{1B}[0m" : header) + "\n")
        var text = ""
        for row in rows { text += line(row) + "\n" }
        write(text)
    }

    /// A value as a table cell: control characters escaped, blobs summarised.
    static func cell(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): String(integer)
        case .real(let real): JSONText.number(real)
        case .text(let text): text.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
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

/// JSON text for values, in column order. Blobs are `{"$base64":"…"}`.
enum JSONText {
    static func object(_ columns: [String], _ values: [DatabaseValue]) -> String {
        "{" + zip(columns, values).map { string($0) + ":" + value($1) }.joined(separator: ",") + "}"
    }

    static func value(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let integer): String(integer)
        case .real(let real): real.isFinite ? number(real) : string(String(real))
        case .text(let text): string(text)
        case .blob(let data): "{\"$base64\":\(string(data.base64EncodedString()))}"
        }
    }

    /// A double as JSON: integral values keep a ".0" so they read back as REAL.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(format: "%.1f", value) }
        return "\(value)"
    }

    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let control where control.value < 0x20 || control.value == 0x7F || control.value == 0x2028 || control.value == 0x2029:
                result += String(format: "\\u%04x", control.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// RFC 4180 fields.
enum CSVText {
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
