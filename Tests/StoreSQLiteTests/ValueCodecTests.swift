import Foundation
import ObservableStoreCore
import TestScheduling
import Testing

@testable import StoreSQLite

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ValueCodecTests {
    @Test func valuesRoundTrip() throws {
        let values: [DatabaseValue] = [
            .null, .integer(0), .integer(-1), .integer(.min), .integer(.max), .integer(300), .real(-0.25), .real(.infinity),
            .text(""), .text("héllo 🌍"), .blob(Data()), .blob(Data((0..<300).map { UInt8($0 % 256) })),
        ]
        var bytes: [UInt8] = []
        for value in values { ValueCodec.append(value, to: &bytes) }
        ValueCodec.appendString("tail", to: &bytes)
        var reader = ValueReader(bytes)
        for value in values { #expect(try reader.value() == value) }
        #expect(try reader.string() == "tail")
        #expect(reader.isAtEnd)
    }

    @Test func hasPrefixComparesFromTheCurrentOffset() throws {
        var reader = ValueReader([1, 2, 3, 4, 5])
        #expect(reader.hasPrefix([1, 2]))
        #expect(reader.hasPrefix([]))
        #expect(reader.hasPrefix([1, 2, 3, 4, 5]))
        #expect(!reader.hasPrefix([1, 2, 3, 4, 5, 6]))  // longer than what is left
        #expect(!reader.hasPrefix([1, 2, 4]))
        try reader.skip(2)
        #expect(reader.hasPrefix([3, 4]))
        #expect(!reader.hasPrefix([1, 2]))
        #expect(!reader.hasPrefix([3, 4, 5, 6]))
        try reader.skip(3)
        #expect(reader.hasPrefix([]))
        #expect(!reader.hasPrefix([5]))
    }

    @Test func truncatedOrMalformedInputThrowsInsteadOfTrapping() {
        var bytes: [UInt8] = []
        ValueCodec.append(.text("a longer text value"), to: &bytes)
        for length in 0..<bytes.count {
            var reader = ValueReader(Array(bytes.prefix(length)))
            #expect(throws: ValueReader.Malformed.self) { try reader.value() }
        }
        var badTag = ValueReader([9])
        #expect(throws: ValueReader.Malformed.self) { try badTag.value() }
        var endlessVarint = ValueReader([UInt8](repeating: 0xFF, count: 20))
        #expect(throws: ValueReader.Malformed.self) { try endlessVarint.varint() }
        var hugeLength = ValueReader([ValueCodec.blobTag, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        #expect(throws: ValueReader.Malformed.self) { try hugeLength.value() }
    }
}
