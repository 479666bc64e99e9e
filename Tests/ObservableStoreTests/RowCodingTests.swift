import Foundation
import StoreSQLite
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct RowCodingTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00.000Z", 0.0),
        ("2026-11-22T10:00:01.250Z", 1_795_341_601.25),
        ("1969-12-31T23:59:59.999Z", -0.001),
        ("2000-02-29T12:00:00.000Z", 951_825_600.0),
    ])
    func timestampsFormatAndParse(text: String, seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(Timestamp.format(date) == text)
        let parsed = try #require(Timestamp.parse(text))
        #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.0005)
        // Exactly the stored precision: a parsed date equals the truncated one it was formatted from.
        #expect(parsed == date.truncatedToMilliseconds)
    }

    @Test func parsedTimestampsEqualTheirTruncatedDates() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let date = Date(timeIntervalSince1970: Double.random(in: -2e9...4e9, using: &generator)).truncatedToMilliseconds
            #expect(Timestamp.parse(Timestamp.format(date)) == date, "\(date.timeIntervalSince1970)")
        }
        // Digits below the millisecond are kept as a fraction of one; offsets move whole minutes.
        let base = Date(timeIntervalSince1970: 1_795_341_601.123)
        let finer = try #require(Timestamp.parse("2026-11-22T10:00:01.12345Z"))
        #expect(abs(finer.timeIntervalSince1970 - 1_795_341_601.12345) < 1e-6)
        #expect(finer > base)
        #expect(Timestamp.parse("2026-11-22T08:30:01.123-01:30") == Timestamp.parse("2026-11-22T10:00:01.123Z"))
    }

    @Test func theTimestampCacheGivesWhatFormattingGives() {
        // Random dates, each followed by dates in the same and in neighbouring milliseconds, three distinct
        // dates taking turns (more than the cache holds), and dates before 1970.
        let cache = TimestampCache()
        var dates: [Date] = []
        for _ in 0..<2_000 {
            let base = Double.random(in: -2e9...4e9)
            dates += [base, base + 0.0004, base - 0.0004, base + 0.001, base].map(Date.init(timeIntervalSince1970:))
        }
        let taking = [1_795_341_601.25, 1_795_341_601.2504, 0.0, -0.001, 1_795_341_601.2509, -0.0015]
        for _ in 0..<3 { dates += taking.map(Date.init(timeIntervalSince1970:)) }
        for date in dates {
            #expect(cache.text(for: date) == Timestamp.format(date), "\(date.timeIntervalSince1970)")
        }
        // A record's dates are written through the cache when there is one, and the same without.
        var node = NodeVO(name: "n", x: 0, y: 0, createdAt: Date(timeIntervalSince1970: 1_795_341_601.2501))
        node.updatedAt = Date(timeIntervalSince1970: 1_795_341_601.2509)
        let cached = try? RowEncoder.encode(node, timestamps: cache)
        #expect(cached?.values == (try? RowEncoder.encode(node))?.values)
        #expect(cached?.value(of: "created_at") == .text("2026-11-22T10:00:01.250Z"))
    }

    @Test func timestampParsingAcceptsSQLiteAndOffsetForms() throws {
        let base = Date(timeIntervalSince1970: 1_795_341_601)
        #expect(Timestamp.parse("2026-11-22 10:00:01") == base)
        #expect(Timestamp.parse("2026-11-22T10:00:01Z") == base)
        #expect(Timestamp.parse("2026-11-22T11:00:01+01:00") == base)
        #expect(Timestamp.parse("2026-11-22T10:00:01.5Z") == base.addingTimeInterval(0.5))
        #expect(Timestamp.parse("2026-11-22") == Date(timeIntervalSince1970: 1_795_305_600))
        for bad in ["", "2026-13-01", "2026-11-22T25:00:00Z", "2026-11-22T10:00:01.Z", "yesterday", "2026-11-22T10:00:01Zjunk"] {
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
    }

    /// The 24-byte form has its own straight-line parser: it must read what the general parser reads, and
    /// refuse (or hand over) every 24-byte text that is not exactly that form.
    @Test func theCanonicalFormParsesAsTheGeneralParserDoes() throws {
        func general(_ text: String) -> Date? {
            var text = text
            return text.withUTF8 { Timestamp.parseAnyForm($0) }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let text = Timestamp.format(Date(timeIntervalSince1970: Double.random(in: -6e10...2e11, using: &generator)))
            #expect(text.utf8.count == 24)
            #expect(Timestamp.parse(text) != nil && Timestamp.parse(text) == general(text), "\(text)")
        }
        // Accepted by the general parser only: a space or a lowercase letter where the canonical form has T or Z.
        for other in ["2026-11-22 10:00:01.250Z", "2026-11-22t10:00:01.250Z", "2026-11-22T10:00:01.250z"] {
            #expect(Timestamp.parse(other) == Date(timeIntervalSince1970: 1_795_341_601.25), "\(other)")
        }
        let refused = [
            "2026-13-22T10:00:01.250Z", "2026-00-22T10:00:01.250Z", "2026-11-32T10:00:01.250Z", "2026-11-00T10:00:01.250Z",
            "2026-11-22T24:00:01.250Z", "2026-11-22T10:60:01.250Z", "2026-11-22T10:00:61.250Z", "2026-11-22T10:00:01.25xZ",
            "20a6-11-22T10:00:01.250Z", "2026/11/22T10:00:01.250Z", "2026-11-22T10:00:01,250Z", "2026-11-22T10:00:01.250+",
            "2026-11-22T10:00:01.2\u{0}0Z",
        ]
        for bad in refused {
            #expect(bad.utf8.count == 24, "\(bad)")
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(SHA256.hex(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func unsignedValuesThatDoNotFitAreRefused() throws {
        struct Huge: Record {
            static let tableName = "nodes"
            typealias Key = Int64
            var id: UInt64
        }
        let error = #expect(throws: StoreError.self) { try RowEncoder.encode(Huge(id: .max)) }
        #expect(error?.message.contains("does not fit") == true)
        #expect(try RowEncoder.encode(Huge(id: 7)).values == [.integer(7)])
    }

    @Test func aRecordMustBeKeyed() {
        #expect(throws: StoreError.self) { try RowEncoder.encode("just a string") }
        #expect(throws: StoreError.self) { try RowEncoder.encode([1, 2, 3]) }
    }

    @Test func encodingKeepsKeyOrderAndWritesNullForNil() throws {
        let row = try RowEncoder.encode(UserInfo(id: "me", name: "Ada", hairColor: nil, createdAt: Date(timeIntervalSince1970: 0)))
        #expect(row.columns == ["id", "name", "hair_color", "created_at", "updated_at"])
        #expect(row.values[2] == .null)
        #expect(row.values[3] == .text("1970-01-01T00:00:00.000Z"))
    }
}

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ChangePayloadTests {
    @Test func aMalformedPayloadIsACorruptionErrorNotACrash() {
        for bytes: [UInt8] in [[], [2], [1, 5], [1, 1, 1, 0x61, 1, 1, 0x78, 1, 9], [1, 0, 1, 0]] {
            let error = #expect(throws: StoreError.self) { try ChangePayload.decode(bytes) }
            #expect(error?.code == .corrupt)
        }
    }

    /// The bytes docs/OBSERVATION.md ("The change-log payload") and `ChangePayload` describe, written by hand:
    /// an insert of (1, 'hi') into t(id PRIMARY KEY, v), then an update of v to -1. Existing stores hold these
    /// bytes, so the layout must not change.
    static let documentedPayload: [UInt8] =
        [2, 1, 1, 0x74, 2, 2, 0x69, 0x64, 1, 0x76, 1, 0, 0, 2]  // version, 1 table: "t", columns "id" "v", pk [0], no REAL
        + [0, 1, 1, 2, 1, 2, 2, 1, 2, 3, 2, 0x68, 0x69]  // table 0, INSERT, rowids 1 1, 2 values: 1, 'hi'
        + [0, 2, 1, 2, 1, 2, 2, 1, 2, 3, 2, 0x68, 0x69, 5, 1, 1]  // table 0, UPDATE, old 1 'hi', new unchanged, -1

    @Test func theDocumentedPayloadDecodes() throws {
        let changes = try ChangePayload.decode(Self.documentedPayload)
        #expect(changes.map(\.operation) == [.insert, .update])
        #expect(changes.map(\.key) == [[.integer(1)], [.integer(1)]])
        #expect(changes[0].new?["v"] == .text("hi"))
        #expect(changes[1].old?["v"] == .text("hi") && changes[1].new?["v"] == .integer(-1))
        #expect(changes[1].new?["id"] == .integer(1) && changes[1].changedColumns == ["v"])
    }

    @Test func aStoreWritesTheDocumentedBytes() throws {
        try withTemporaryStore { store, _ in
            try store.write { try $0.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)") }
            try store.write { tx in
                try tx.execute("INSERT INTO t VALUES (1, 'hi')")
                try tx.execute("UPDATE t SET v = -1 WHERE id = 1")
            }
            let payload = try store.read { try $0.fetchValue("SELECT payload FROM _store_commits WHERE change_count = 2") }
            guard case .blob(let data) = payload else {
                Issue.record("no payload: \(String(describing: payload))")
                return
            }
            #expect(Array(data) == Self.documentedPayload)
        }
    }

    /// Version 2 logs an update's unchanged columns as one byte each; listeners still get whole rows.
    @Test func anUpdateLogsOnlyItsChangedColumnsAndDecodesWholeRows() throws {
        try withTemporaryStore { store, _ in
            let name = String(repeating: "n", count: 2_000)
            try store.write { try $0.insert(NodeVO(id: 1, name: name, x: 1, y: 2)) }
            try store.write { try $0.execute("UPDATE nodes SET x = 5, y = y WHERE id = 1") }
            let sizes = try store.read { try $0.fetchRows("SELECT length(payload) AS n FROM _store_commits ORDER BY seq") }
                .compactMap { $0.value("n", as: Int.self) }
            // The insert logs the 2,000-byte name once; the update logs it once (old image), not twice.
            #expect(sizes.count == 2 && sizes[1] < sizes[0] + 200, "payload sizes \(sizes)")
            let change = try #require(try store.commits(after: 1).first?.changes.first)
            #expect(change.old?["x"] == .real(1) && change.new?["x"] == .real(5))
            #expect(change.new?["name"] == .text(name) && change.new?["y"] == .real(2))
            #expect(change.changedColumns == ["x"])
        }
    }

    /// Payloads written before version 2 (whole new images) are still read.
    @Test func version1PayloadsAreStillRead() throws {
        var records: [UInt8] = []
        ValueCodec.appendVarint(0, to: &records)
        records.append(PreupdateChange.Operation.update.rawValue)
        ValueCodec.appendInteger(7, to: &records)
        ValueCodec.appendInteger(7, to: &records)
        ValueCodec.appendVarint(2, to: &records)
        for value: DatabaseValue in [.integer(7), .text("old"), .integer(7), .text("new")] { ValueCodec.append(value, to: &records) }
        var payload = ChangePayload.encode(
            tables: [ChangePayload.Table(name: "t", columns: ["id", "name"], primaryKey: [0])], changeCount: 1, records: records)
        payload[0] = 1
        let change = try #require(try ChangePayload.decode(payload).first)
        #expect(change.old?["name"] == .text("old") && change.new?["name"] == .text("new") && change.changedColumns == ["name"])
    }

    @Test func headersThatDifferAreNeverTakenForTheLastOne() throws {
        // Decoding reuses the last header's tables when its bytes repeat. Headers that differ only in a
        // column name, in having one more column, or in a table's name must each decode as themselves.
        func payload(table: String, columns: [String]) -> [UInt8] {
            var records: [UInt8] = []
            ValueCodec.appendVarint(0, to: &records)
            records.append(1)  // insert
            ValueCodec.appendInteger(0, to: &records)
            ValueCodec.appendInteger(1, to: &records)
            ValueCodec.appendVarint(UInt64(columns.count), to: &records)
            for index in columns.indices { ValueCodec.append(.integer(Int64(index)), to: &records) }
            return ChangePayload.encode(
                tables: [ChangePayload.Table(name: table, columns: columns, primaryKey: [0])], changeCount: 1, records: records)
        }
        let cases: [(String, [String])] = [
            ("t", ["id", "a"]), ("t", ["id", "b"]), ("t", ["id", "a", "c"]), ("u", ["id", "a"]), ("t", ["id", "a"]),
            ("t", ["id", "a"]),
        ]
        for (table, columns) in cases {
            let change = try #require(try ChangePayload.decode(payload(table: table, columns: columns)).first)
            #expect(change.table == table)
            #expect(change.new?.columns == columns)
        }
        // A payload cut inside a header that starts like the cached one is still malformed.
        let whole = payload(table: "t", columns: ["id", "a"])
        _ = try ChangePayload.decode(whole)
        #expect(throws: StoreError.self) { try ChangePayload.decode(Array(whole.prefix(6))) }
    }

    @Test func aPayloadRoundTrips() throws {
        var records: [UInt8] = []
        ValueCodec.appendVarint(0, to: &records)
        records.append(1)  // insert
        ValueCodec.appendInteger(0, to: &records)
        ValueCodec.appendInteger(7, to: &records)
        ValueCodec.appendVarint(2, to: &records)
        ValueCodec.append(.integer(7), to: &records)
        ValueCodec.append(.text("seven"), to: &records)
        let payload = ChangePayload.encode(
            tables: [ChangePayload.Table(name: "t", columns: ["id", "name"], primaryKey: [0], realColumns: [])], changeCount: 1,
            records: records)
        let changes = try ChangePayload.decode(payload)
        #expect(changes == [
            Change(
                table: "t", operation: .insert, key: [.integer(7)], old: nil,
                new: Row(columns: ["id", "name"], values: [.integer(7), .text("seven")]), changedColumns: ["id", "name"])
        ])
    }
}
