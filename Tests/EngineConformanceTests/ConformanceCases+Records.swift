import Foundation
import ObservableStoreCore
import Testing

extension ConformanceCases {
    /// A `NodeVO` goes in and comes back the same (dates to the millisecond), through the repository and a
    /// transaction; update and delete act on its key only.
    static func nodesRoundTrip<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let nodes = store.repository(NodeVO.self, origin: nil)
            let created = Date(timeIntervalSince1970: 1_700_000_000.123_456)
            var first = try nodes.insert(NodeVO(name: "first", x: 1.5, y: -2.25, color: "#FFFFFF", createdAt: created))
            let second = try nodes.insert(node("second"))
            let key = try #require(first.id)
            #expect(second.id != first.id)
            #expect(try nodes.fetch(key) == first)
            #expect(first.createdAt == created.truncatedToMilliseconds)
            first.name = "renamed"
            first.width = 300
            try nodes.update(first)
            #expect(try nodes.fetch(key) == first)
            #expect(try store.read { try $0.fetch(NodeVO.self, key: key) } == first)
            #expect(try nodes.fetch(try #require(second.id)) == second)
            #expect(try nodes.delete(key: key))
            #expect(try nodes.fetch(key) == nil)
            #expect(try !nodes.delete(key: key))
            #expect(try nodes.count(RecordQuery()) == 1)
        }
    }

    /// A `UserInfo` (a text key, a nullable column) goes in and comes back the same; an upsert replaces it.
    static func userInfoRoundTrips<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let user = UserInfo(id: "me", name: "Ada", hairColor: nil)
            try store.write(origin: nil) { tx in _ = try tx.insert(user) }
            #expect(try store.read { try $0.fetch(UserInfo.self, key: "me") } == user)
            var changed = user
            changed.name = "Ada L."
            changed.hairColor = "brown"
            try store.write(origin: nil) { tx in _ = try tx.upsert(changed) }
            #expect(try store.read { try $0.fetch(UserInfo.self, key: "me") } == changed)
            #expect(try store.read { try $0.count(RecordQuery<UserInfo>()) } == 1)
            // A second insert with the same key is refused, and changes nothing.
            let duplicate = #expect(throws: StoreError.self) { try store.write(origin: nil) { tx in _ = try tx.insert(user) } }
            #expect(duplicate?.code == .constraint)
            #expect(try store.read { try $0.fetch(UserInfo.self, key: "me") } == changed)
        }
    }

    /// Every value kind round-trips: 64-bit integer extremes, doubles, Unicode text, a blob of every byte, nil and
    /// non-nil optionals, a date (to the millisecond) and both booleans.
    static func everyValueKindRoundTrips<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            try store.write(origin: nil) { tx in _ = try tx.execute(engine.createAllKindsTable, []) }
            let date = Date(timeIntervalSince1970: 1_234_567_890.987_654)
            let records = [
                AllKinds(
                    intValue: .max, realValue: .pi, textValue: "zaž 🚀 日本語 \u{1F468}\u{200D}\u{1F469}",
                    blobValue: Data(0...255), optionalText: nil, dateValue: date, flag: true),
                AllKinds(
                    intValue: .min, realValue: -1.7976931348623157e308, textValue: "", blobValue: Data(),
                    optionalText: "present", dateValue: Date(timeIntervalSince1970: 0), flag: false),
                AllKinds(
                    intValue: 0, realValue: .leastNonzeroMagnitude, textValue: "'quotes' \"and\" \\ backslash", blobValue: Data([0]),
                    optionalText: "", dateValue: Date(timeIntervalSince1970: -86_400.5), flag: true),
            ]
            let inserted = try store.write(origin: nil) { tx in try records.map { try tx.insert($0) } }
            let read = try store.read { try $0.fetchAll(RecordQuery<AllKinds>().order(by: "id")) }
            var expected = inserted
            for index in expected.indices { expected[index].dateValue = expected[index].dateValue.truncatedToMilliseconds }
            #expect(read == expected)
            #expect(read.first?.dateValue == date.truncatedToMilliseconds)
        }
    }

    /// Text holding the NUL character: SQLite keeps it; PostgreSQL's `text` cannot hold it, so the write is refused
    /// with one error and nothing is written (``EngineDifference/textRefusesNUL``).
    static func textWithNUL<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let record = UserInfo(id: "nul", name: "before\u{0}after")
            if EngineDifference.of(engine.kind).contains(.textRefusesNUL) {
                #expect(throws: StoreError.self) { try store.write(origin: nil) { tx in _ = try tx.insert(record) } }
                #expect(try store.read { try $0.count(RecordQuery<UserInfo>()) } == 0)
            } else {
                try store.write(origin: nil) { tx in _ = try tx.insert(record) }
                #expect(try store.read { try $0.fetch(UserInfo.self, key: "nul") }?.name == "before\u{0}after")
            }
        }
    }

    /// Filters, order, limit, keyset paging and count select the same records on both engines.
    static func queriesFilterOrderPageAndCount<E: ConformanceEngine>(_ engine: E) throws {
        try withStore(engine) { store in
            let names = (0..<10).map { "n\($0)" }
            try store.write(origin: nil) { tx in
                for (index, name) in names.enumerated() { _ = try tx.insert(node(name, x: Double(index))) }
            }
            let nodes = store.repository(NodeVO.self, origin: nil)
            let big = RecordQuery<NodeVO>().filter("x", .greaterThanOrEqual, 5.0)
            #expect(try nodes.fetchAll(big.order(by: "name", descending: true).limit(3)).map(\.name) == ["n9", "n8", "n7"])
            #expect(try nodes.count(big) == 5)
            #expect(try nodes.count(RecordQuery()) == 10)
            #expect(try nodes.fetchAll(RecordQuery().filter("name", in: ["n1", "n3", "zz"]).order(by: "name")).map(\.name) == ["n1", "n3"])
            #expect(try nodes.fetchAll(RecordQuery().filter("name", equals: "n4")).map(\.x) == [4])
            #expect(try store.read { try $0.fetchOne(RecordQuery<NodeVO>().order(by: "x", descending: true)) }?.name == "n9")
            // Keyset paging: pages of 3 after the last record of the previous page give every record once, in order.
            let ordered = RecordQuery<NodeVO>().order(by: "name")
            var paged: [String] = []
            var page = try nodes.fetchAll(ordered.limit(3))
            while let last = page.last {
                paged += page.map(\.name)
                page = try nodes.fetchAll(ordered.after(last).limit(3))
            }
            #expect(paged == names)
            #expect(try store.read { try $0.fetchAll(big.order(by: "x").limit(2).offset(1)) }.map(\.name) == ["n6", "n7"])
            #expect(try store.write(origin: nil) { try $0.deleteAll(big) } == 5)
            #expect(try nodes.count(RecordQuery()) == 5)
        }
    }
}
