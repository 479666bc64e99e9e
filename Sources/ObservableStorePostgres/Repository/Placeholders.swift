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

    /// `sql` with its named parameters (`:name`, outside literals, quoted identifiers, dollar-quoted bodies and
    /// comments; not a `::type` cast) replaced by `replacement(name, index)` (by default `$1`, `$2`, …: one number
    /// per name, in order of first use), and the names in that order.
    static func namedParameters(
        _ sql: String, replacement: (_ name: String, _ index: Int) -> String = { "$\($1 + 1)" }
    ) -> (sql: String, names: [String]) {
        let bytes = Array(sql.utf8)
        func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_") || byte >= 0x80
                || (!first && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte))
        }
        var names: [String] = []
        var result: [UInt8] = []
        var start = 0
        for colon in offsets(of: UInt8(ascii: ":"), in: bytes).offsets where colon >= start {
            let previous = colon > 0 ? bytes[colon - 1] : 0
            guard previous != UInt8(ascii: ":"), let first = next(bytes, colon), isNameByte(first, first: true) else { continue }
            var end = colon + 1
            while end < bytes.count, isNameByte(bytes[end], first: false) { end += 1 }
            let name = String(decoding: bytes[(colon + 1)..<end], as: UTF8.self)
            if !names.contains(name) { names.append(name) }
            result.append(contentsOf: bytes[start..<colon])
            result.append(contentsOf: replacement(name, names.firstIndex(of: name) ?? 0).utf8)
            start = end
        }
        result.append(contentsOf: bytes[start...])
        return (String(decoding: result, as: UTF8.self), names)
    }

    /// `text` as a dollar-quoted literal (`$p$…$p$`, with a tag the text does not hold): a constant of no type yet,
    /// which PostgreSQL types by its use, whatever `standard_conforming_strings` says.
    static func dollarQuoted(_ text: String) -> String {
        var tag = "$p$"
        var number = 0
        // Without the tag's first part (`$p`, `$p1`, …) in the text, the tag cannot occur before its closing copy.
        while text.contains(String(tag.dropLast())) {
            number += 1
            tag = "$p\(number)$"
        }
        return tag + text + tag
    }

    /// The words of `sql` outside literals, quoted identifiers, dollar-quoted bodies and comments, uppercased.
    static func keywords(_ sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        var words: [String] = []
        var word: [UInt8] = []
        var index = 0
        func endWord() {
            if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self).uppercased()) }
            word = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                endWord()
                index = skip(bytes, from: index + 1, past: [byte])
                continue
            case UInt8(ascii: "-") where next(bytes, index) == UInt8(ascii: "-"):
                endWord()
                index = skip(bytes, from: index + 2, past: [UInt8(ascii: "\n")])
                continue
            case UInt8(ascii: "/") where next(bytes, index) == UInt8(ascii: "*"):
                endWord()
                index = skip(bytes, from: index + 2, past: Array("*/".utf8))
                continue
            case UInt8(ascii: "$") where word.isEmpty:
                if let tagEnd = dollarTagEnd(bytes, from: index) {
                    index = skip(bytes, from: tagEnd, past: Array(bytes[index..<tagEnd]))
                    continue
                }
            default:
                if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_") {
                    word.append(byte)
                } else {
                    endWord()
                }
            }
            index += 1
        }
        endWord()
        return words
    }

    /// The offsets of `target` outside string literals, quoted identifiers, dollar-quoted bodies and comments, and
    /// whether a `$n` placeholder was seen.
    static func offsets(of target: UInt8, in bytes: [UInt8]) -> (offsets: [Int], hasNumberedPlaceholders: Bool) {
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

    static func next(_ bytes: [UInt8], _ index: Int) -> UInt8? {
        index + 1 < bytes.count ? bytes[index + 1] : nil
    }

    /// The offset after the first `terminator` at or after `start` (the end when there is none).
    static func skip(_ bytes: [UInt8], from start: Int, past terminator: [UInt8]) -> Int {
        var index = start
        while index + terminator.count <= bytes.count {
            if bytes[index..<index + terminator.count].elementsEqual(terminator) { return index + terminator.count }
            index += 1
        }
        return bytes.count
    }

    /// The offset after a dollar-quote tag (`$$` or `$name$`) starting at `start`, or nil when there is none.
    static func dollarTagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
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
