import Foundation
import ObservableStoreCore
import TestScheduling
import Testing

/// JSONText's strings, values and objects: the same text as the scalar-by-scalar encoder it replaced, and the same
/// bytes from its `append` functions as from its `String` ones.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct JSONTextTests {
    /// The encoder JSONText had before it copied runs of UTF-8 whole: the reference its output must equal.
    private func referenceString(_ text: String) -> String {
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

    private let samples = [
        "", "plain", "a\"b", "back\\slash", "line\nbreak\r\n", "tab\there", "\u{0}\u{1}\u{8}\u{C}\u{1F}", "del\u{7F}",
        "\u{2028}", "x\u{2029}y", "\u{2027}\u{202A}", "é ü ß", "日本語", "emoji 👩‍💻 🇨🇭", "\u{E2}", "end\\",
        "\"", "mixed \u{2028}\"\\\n日\u{1}👍", String(repeating: "long run without escapes ", count: 200),
    ]

    @Test func stringsEqualTheReferenceEncoder() {
        for sample in samples {
            #expect(JSONText.string(sample) == referenceString(sample), "\(sample.debugDescription)")
        }
        // Every scalar below U+0800, and the line and paragraph separators' neighbours.
        let scalars = (0..<0x800).compactMap(Unicode.Scalar.init) + (0x2020...0x2030).compactMap(Unicode.Scalar.init)
        for scalar in scalars {
            let text = "a" + String(Character(scalar)) + "b"
            #expect(JSONText.string(text) == referenceString(text), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func escapesAreTheShortFormsOrLowercaseHex() {
        #expect(JSONText.string("q\"b\\n\nr\rt\t") == #""q\"b\\n\nr\rt\t""#)
        #expect(JSONText.string("\u{0}\u{1F}\u{7F}\u{2028}\u{2029}") == #""\u0000\u001f\u007f\u2028\u2029""#)
        #expect(JSONText.string("é👍") == "\"é👍\"")
    }

    @Test func nonFiniteRealsAreStrings() {
        #expect(JSONText.value(.real(.infinity)) == #""inf""#)
        #expect(JSONText.value(.real(-.infinity)) == #""-inf""#)
        #expect(JSONText.value(.real(.nan)) == #""nan""#)
        #expect(JSONText.value(.real(1e300)) == "1e+300")
        #expect(JSONText.value(.real(120)) == "120.0")
    }

    @Test func appendingGivesTheSameBytesAsTheStrings() {
        let columns = ["id", "name", "x", "blob", "none", "we\"ird"]
        let values: [DatabaseValue] = [.integer(-3), .text("a\u{2028}\"b"), .real(10.5), .blob(Data([0, 255])), .null, .real(.nan)]
        let object = JSONText.object(columns, values)
        #expect(object == #"{"id":-3,"name":"a\u2028\"b","x":10.5,"blob":{"$base64":"AP8="},"none":null,"we\"ird":"nan"}"#)
        var bytes = Array("[".utf8)
        JSONText.appendObject(columns, values, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendValue(.text("日"), to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendString("\u{1}", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "[" + object + ",\"日\",\"\\u0001\"")
        #expect(JSONText.object([], []) == "{}")
    }
}
