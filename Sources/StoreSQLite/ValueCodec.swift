import Foundation
import ObservableStoreCore

/// A compact binary form of ``DatabaseValue``s, used for captured row images in the change log.
///
/// Each value is a tag byte, then: nothing (NULL), a zig-zag varint (INTEGER), 8 little-endian
/// bytes (REAL), or a varint length and the bytes (TEXT as UTF-8, BLOB). Counts and lengths are
/// unsigned LEB128 varints.
///
/// **Part of the change-log payload format**, which is defined in one place: the comment on `ChangePayload`
/// in `Sources/ObservableStore/ChangeLog/ChangePayload.swift` (and docs/OBSERVATION.md, "The change-log
/// payload"). The tags live here, not there, because the preupdate hook (`PreupdateChange` in
/// Connection+Hooks.swift) writes them, including ``unchangedTag``, and this layer may not name a higher
/// one. The bytes are stored in existing databases: never renumber a tag or change an encoding.
package enum ValueCodec {
    package static let nullTag: UInt8 = 0
    package static let integerTag: UInt8 = 1
    package static let realTag: UInt8 = 2
    package static let textTag: UInt8 = 3
    package static let blobTag: UInt8 = 4
    /// In an UPDATE's new image only: the column kept the value it has in the old image (payload
    /// version 2; see `ChangePayload`). Written by ``PreupdateChange/appendUpdateValues(to:)``.
    package static let unchangedTag: UInt8 = 5

    /// Appends `value` as an unsigned LEB128 varint.
    @inline(__always)
    package static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Appends a signed integer, zig-zag encoded so small negative numbers stay short.
    @inline(__always)
    package static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        bytes.append(integerTag)
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
    }

    @inline(__always)
    package static func appendReal(_ value: Double, to bytes: inout [UInt8]) {
        bytes.append(realTag)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    package static func appendBytes(tag: UInt8, _ pointer: UnsafeRawPointer?, count: Int, to bytes: inout [UInt8]) {
        bytes.append(tag)
        appendVarint(UInt64(count), to: &bytes)
        if let pointer, count > 0 {
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
        }
    }

    /// Appends `value`.
    package static func append(_ value: DatabaseValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(nullTag)
        case .integer(let integer): appendInteger(integer, to: &bytes)
        case .real(let real): appendReal(real, to: &bytes)
        case .text(let text):
            var text = text
            text.withUTF8 { appendBytes(tag: textTag, $0.baseAddress, count: $0.count, to: &bytes) }
        case .blob(let data):
            data.withUnsafeBytes { appendBytes(tag: blobTag, $0.baseAddress, count: $0.count, to: &bytes) }
        }
    }

    /// Appends `text` as a length-prefixed UTF-8 string (no tag).
    package static func appendString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Reads what ``ValueCodec`` wrote, checking every length; malformed input throws instead of trapping.
package struct ValueReader {
    /// Thrown for truncated or malformed bytes.
    package struct Malformed: Error, Sendable {
        package let offset: Int
        package init(offset: Int) { self.offset = offset }
    }

    private let bytes: [UInt8]
    package private(set) var offset: Int

    package init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { offset >= bytes.count }

    package mutating func byte() throws(Malformed) -> UInt8 {
        guard offset < bytes.count else { throw Malformed(offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Moves past `count` bytes.
    package mutating func skip(_ count: Int) throws(Malformed) {
        _ = try raw(count)
    }

    /// Whether the bytes from the current offset start with `prefix`.
    package func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard prefix.count <= bytes.count - offset else { return false }
        guard !prefix.isEmpty else { return true }
        // memcmp: a payload's header (its tables' names and columns) is compared at every decode.
        return bytes.withUnsafeBytes { all in
            prefix.withUnsafeBytes { memcmp(all.baseAddress! + offset, $0.baseAddress!, prefix.count) == 0 }
        }
    }

    package mutating func varint() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw Malformed(offset: offset) }
            result |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    package mutating func count() throws(Malformed) -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - offset) * 8 + 1_000_000 else { throw Malformed(offset: offset) }
        return Int(value)
    }

    private mutating func raw(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw Malformed(offset: offset) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    package mutating func string() throws(Malformed) -> String {
        String(decoding: try raw(try count()), as: UTF8.self)
    }

    /// A value, or `old` where the bytes say the column is unchanged (``ValueCodec/unchangedTag``).
    package mutating func value(unchangedFrom old: DatabaseValue) throws(Malformed) -> DatabaseValue {
        if offset < bytes.count, bytes[offset] == ValueCodec.unchangedTag {
            offset += 1
            return old
        }
        return try value()
    }

    package mutating func value() throws(Malformed) -> DatabaseValue {
        switch try byte() {
        case ValueCodec.nullTag: return .null
        case ValueCodec.integerTag:
            let zigzag = try varint()
            return .integer(Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1))))
        case ValueCodec.realTag:
            var bits: UInt64 = 0
            for (index, byte) in try raw(8).enumerated() { bits |= UInt64(byte) << (8 * UInt64(index)) }
            return .real(Double(bitPattern: bits))
        case ValueCodec.textTag: return .text(try string())
        case ValueCodec.blobTag: return .blob(Data(try raw(try count())))
        default: throw Malformed(offset: offset - 1)
        }
    }
}
