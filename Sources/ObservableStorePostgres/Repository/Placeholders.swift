#if PostgreSQL
import ObservableStoreCore

/// SQL written for SQLite's `?` placeholders, made PostgreSQL's `$1`, `$2`, …: a `?` outside string literals, quoted
/// identifiers, dollar-quoted bodies and comments is numbered in order. Text that already uses `$n` placeholders is
/// left alone (so PostgreSQL's `jsonb` operators `?`, `?|`, `?&` can be written with `$n` placeholders).
enum Placeholders {
    /// `sql` with its `?` placeholders numbered from `first`, and how many there were.
    static func numbered(_ sql: String, from first: Int = 1) -> (sql: String, count: Int) {
        let bytes = Array(sql.utf8)
        let scan = offsets(of: UInt8(ascii: "?"), in: bytes)
        guard !scan.hasNumberedPlaceholders, !scan.offsets.isEmpty else { return (sql, 0) }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + scan.offsets.count * 2)
        var start = 0
        for (position, mark) in scan.offsets.enumerated() {
            result.append(contentsOf: bytes[start..<mark])
            result.append(contentsOf: "$\(first + position)".utf8)
            start = mark + 1
        }
        result.append(contentsOf: bytes[start...])
        return (String(decoding: result, as: UTF8.self), scan.offsets.count)
    }

    /// Whether `sql` holds a `;` followed by more than whitespace, outside literals and comments: several statements.
    static func hasSeveralStatements(_ sql: String) -> Bool {
        let bytes = Array(sql.utf8)
        return offsets(of: UInt8(ascii: ";"), in: bytes).offsets.contains { offset in
            bytes[(offset + 1)...].contains { !(Character(UnicodeScalar($0)).isWhitespace) }
        }
    }

    /// The offsets of `target` outside string literals, quoted identifiers, dollar-quoted bodies and comments, and
    /// whether a `$n` placeholder was seen.
    private static func offsets(of target: UInt8, in bytes: [UInt8]) -> (offsets: [Int], hasNumberedPlaceholders: Bool) {
        var found: [Int] = []
        var numbered = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                index = skip(bytes, from: index + 1, past: [byte])
                continue
            case UInt8(ascii: "-") where next(bytes, index) == UInt8(ascii: "-"):
                index = skip(bytes, from: index + 2, past: [UInt8(ascii: "\n")])
                continue
            case UInt8(ascii: "/") where next(bytes, index) == UInt8(ascii: "*"):
                index = skip(bytes, from: index + 2, past: Array("*/".utf8))
                continue
            case UInt8(ascii: "$"):
                if let digit = next(bytes, index), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) {
                    numbered = true
                } else if let tagEnd = dollarTagEnd(bytes, from: index) {
                    index = skip(bytes, from: tagEnd, past: Array(bytes[index..<tagEnd]))
                    continue
                }
            case target:
                found.append(index)
            default:
                break
            }
            index += 1
        }
        return (found, numbered)
    }

    private static func next(_ bytes: [UInt8], _ index: Int) -> UInt8? {
        index + 1 < bytes.count ? bytes[index + 1] : nil
    }

    /// The offset after the first `terminator` at or after `start` (the end when there is none).
    private static func skip(_ bytes: [UInt8], from start: Int, past terminator: [UInt8]) -> Int {
        var index = start
        while index + terminator.count <= bytes.count {
            if bytes[index..<index + terminator.count].elementsEqual(terminator) { return index + terminator.count }
            index += 1
        }
        return bytes.count
    }

    /// The offset after a dollar-quote tag (`$$` or `$name$`) starting at `start`, or nil when there is none.
    private static func dollarTagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "$") { return index + 1 }
            let isLetter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_") || byte >= 0x80
            let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            guard isLetter || (isDigit && index > start + 1) else { return nil }
            index += 1
        }
        return nil
    }
}
#endif
