import Foundation
import ObservableStore

// Generated inputs for the streaming import tests: nodes with exact big integers, reals that need every digit,
// unicode, and (in CSV) quotes, commas and line breaks inside fields.

/// One node of a generated input, with the values the store must hold afterwards.
struct SampleNode: Equatable {
    var id: Int64
    var name: String
    var x: Double
    var y: Double

    /// `count` nodes: ids 1…count except two beyond Double's exact range (2^53 + 1 in the middle, Int64.max last);
    /// every 7th name holds a quote, a comma, a line break and non-ASCII text.
    static func make(_ count: Int) -> [SampleNode] {
        (0..<count).map { index in
            let id: Int64 =
                index == count - 1 ? Int64.max : index == count / 2 ? 9_007_199_254_740_993 : Int64(index + 1)
            let name = index % 7 == 0 ? "quote \"\(index)\", comma\nline ü日本🎉" : "node \(index)"
            return SampleNode(id: id, name: name, x: Double(index) / 3, y: index % 11 == 0 ? -1.5e300 : Double(index) * 1e-9)
        }
    }

    /// The node as one NDJSON line (no line break).
    var json: String {
        let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return #"{"id":\#(id),"name":"\#(escaped)","x":\#(x),"y":\#(y)}"#
    }

    /// The node as one CSV row (no line break): the name quoted, its quotes doubled.
    var csv: String {
        "\(id),\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\",\(x),\(y)"
    }

    /// The nodes in the store at `path`, by id.
    static func stored(_ path: String) throws -> [SampleNode] {
        try withStore(path) { store in
            try store.read { tx in
                try tx.fetchRows("SELECT id, name, x, y FROM nodes ORDER BY id").map { row in
                    SampleNode(
                        id: row.value("id") ?? -1, name: row.value("name") ?? "", x: row.value("x") ?? .nan,
                        y: row.value("y") ?? .nan)
                }
            }
        }
    }
}

/// Writes `lines` to `url` joined by `separator` (and one after the last), a block at a time.
func writeLines(_ lines: some Sequence<String>, to url: URL, separator: String = "\n", header: String? = nil) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var block = header.map { $0 + separator } ?? ""
    for line in lines {
        block += line + separator
        if block.utf8.count > 1 << 20 {
            try handle.write(contentsOf: Data(block.utf8))
            block = ""
        }
    }
    try handle.write(contentsOf: Data(block.utf8))
}

/// The last sequence of the store's change log: unchanged when a command committed nothing.
func lastLoggedSequence(_ path: String) throws -> Int64 {
    try withStore(path) { try $0.lastSequence() }
}
