import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct RepositoryTests {
    @Test func everyColumnTypeRoundTrips() throws {
        try withTemporaryStore(configuration: Sample.configuration) { store, _ in
            let samples = store.repository(Sample.self)
            let inserted = try samples.insert(Sample.make(4))
            let id = try #require(inserted.id)
            #expect(try samples.fetch(id) == inserted)
            // Stored as the documented SQL types, not as JSON blobs of the whole record.
            let row = try #require(try store.read { try $0.fetchRows("SELECT * FROM samples").first })
            #expect(row["flag"] == .integer(1))
            #expect(row["big"] == .integer(Int64(UInt32.max)))
            #expect(row["bytes"] == .blob(Data([1, 2, 3, 4])))
            #expect(row["when"] == .text("2026-09-21T14:13:20.125Z"))
            #expect(row["mood"] == .text("busy"))
            #expect(row["extra"] == .text(#"{"tags":["a","b"],"weight":2.5}"#))
            #expect(row["list"] == .text("[1,2,3]"))
            #expect(row["optional_text"] == .null)
        }
    }

    @Test func optionalsCanBeSetAndClearedAgain() throws {
        try withTemporaryStore(configuration: Sample.configuration) { store, _ in
            let samples = store.repository(Sample.self)
            var sample = try samples.insert(Sample.make())
            sample.optionalText = "now set"
            sample.optionalDate = Date(timeIntervalSince1970: 0)
            try samples.update(sample)
            #expect(try samples.fetch(sample.id!) == sample)
            sample.optionalText = nil
            sample.optionalCount = nil
            sample.optionalDate = nil
            try samples.update(sample)
            let fetched = try #require(try samples.fetch(sample.id!))
            #expect(fetched.optionalText == nil)
            #expect(fetched.optionalCount == nil)
            #expect(fetched == sample)
        }
    }

    @Test func unicodeAndLargeBlobsRoundTrip() throws {
        try withTemporaryStore(configuration: Sample.configuration) { store, _ in
            var sample = Sample.make()
            sample.text = "Zoë 🧪 日本語 \u{202E}rtl \u{0} nul"
            sample.bytes = Data((0..<8_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let inserted = try store.repository(Sample.self).insert(sample)
            let fetched = try #require(try store.repository(Sample.self).fetch(inserted.id!))
            #expect(fetched.text == sample.text)
            #expect(fetched.bytes == sample.bytes)
        }
    }

    @Test func shippedRecordsRoundTrip() throws {
        try withTemporaryStore { store, _ in
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: "A", x: 1.5, y: -2, color: "#FF0000"))
            #expect(node.id == 1)
            #expect(try store.repository(NodeVO.self).fetch(1) == node)
            let user = try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada", hairColor: nil))
            #expect(try store.repository(UserInfo.self).fetch("me") == user)
        }
    }

    @Test func shippedTablesFillDefaultsForMinimalRows() throws {
        try withTemporaryStore { store, _ in
            try store.write { tx in
                try tx.execute("INSERT INTO nodes (name, x, y) VALUES ('bare', 1, 2)")
                try tx.execute("INSERT INTO user_info (id, name) VALUES ('u1', 'Bo')")
            }
            let node = try #require(try store.repository(NodeVO.self).fetch(1))
            #expect(node.color == NodeVO.defaultColor)
            #expect(node.width == 120)
            #expect(abs(node.createdAt.timeIntervalSinceNow) < 60)
            let user = try #require(try store.repository(UserInfo.self).fetch("u1"))
            #expect(user.hairColor == nil)
            #expect(abs(user.updatedAt.timeIntervalSinceNow) < 60)
        }
    }

    @Test func insertAssignsIncreasingIDs() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            let inserted = try nodes.insertAll((0..<5).map { NodeVO(name: "n\($0)", x: 0, y: 0) })
            #expect(inserted.map(\.id) == [1, 2, 3, 4, 5])
            #expect(try nodes.count() == 5)
        }
    }

    @Test func upsertInsertsThenUpdatesInPlace() throws {
        try withTemporaryStore { store, _ in
            let users = store.repository(UserInfo.self)
            try users.upsert(UserInfo(id: "me", name: "Ada"))
            let rowidBefore = try store.read { try $0.fetchValue("SELECT rowid FROM user_info WHERE id = 'me'") }
            try users.upsert(UserInfo(id: "me", name: "Grace", hairColor: "grey"))
            #expect(try users.fetch("me")?.name == "Grace")
            #expect(try users.fetch("me")?.hairColor == "grey")
            #expect(try users.count() == 1)
            // ON CONFLICT DO UPDATE keeps the row; INSERT OR REPLACE would have deleted and re-inserted it.
            #expect(try store.read { try $0.fetchValue("SELECT rowid FROM user_info WHERE id = 'me'") } == rowidBefore)
            let node = try store.repository(NodeVO.self).upsert(NodeVO(name: "new", x: 0, y: 0))
            #expect(node.id == 1)
        }
    }

    @Test func updateOfAMissingRecordThrowsNotFound() throws {
        try withTemporaryStore { store, _ in
            let error = #expect(throws: StoreError.self) {
                try store.repository(NodeVO.self).update(NodeVO(id: 42, name: "ghost", x: 0, y: 0))
            }
            #expect(error?.code == .notFound)
            #expect(error?.message == "record nodes/42 not found")
            #expect(throws: StoreError.self) { try store.repository(NodeVO.self).update(NodeVO(name: "no id", x: 0, y: 0)) }
        }
    }

    @Test func updateOfSomeColumnsLeavesTheOthersAndLogsOnlyThose() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            var node = try nodes.insert(NodeVO(name: "stored", x: 1, y: 2))
            let (recorder, token) = store.record(filter: .table("nodes"))
            node.x = 10
            node.name = "only in memory"
            try nodes.update(node, columns: ["x"])
            node.x = 20  // the second binds straight into the statement the first kept
            try nodes.update(node, columns: ["x"])
            let stored = try #require(try nodes.fetch(node.id!))
            #expect(stored.x == 20)
            #expect(stored.name == "stored")
            #expect(recorder.wait(for: 2))
            #expect(recorder.changes.map(\.changedColumns) == [["x"], ["x"]])
            #expect(recorder.changes.map { $0.new?.value("name", as: String.self) } == ["stored", "stored"])
            withExtendedLifetime(token) {}
        }
    }

    @Test func updateOfSomeColumnsThroughCodable() throws {
        // Sample is not RowEncodable: the Encodable path keeps the named columns the same way.
        try withTemporaryStore(configuration: Sample.configuration) { store, _ in
            let samples = store.repository(Sample.self)
            var sample = try samples.insert(Sample.make(3))
            let before = sample
            sample.text = "changed"
            sample.ratio = 99
            sample.optionalText = "set"
            try samples.update(sample, columns: ["optional_text", "ratio"])
            var expected = before
            expected.ratio = 99
            expected.optionalText = "set"
            #expect(try samples.fetch(sample.id!) == expected)
        }
    }

    @Test func updateOfSomeColumnsRefusesTheKeyUnknownColumnsAndMissingRows() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            let stored = try nodes.insert(NodeVO(name: "stored", x: 1, y: 2))
            var node = stored
            node.x = 5
            for (columns, message) in [
                (["x", "id"], #"nodes: cannot update column "id": it is the primary key"#),
                (["x", "colour"], #"nodes: cannot update column "colour": it is not a column the record writes"#),
                ([], "nodes: update names no column to write"),
            ] {
                let error = #expect(throws: StoreError.self) { try nodes.update(node, columns: columns) }
                #expect(error?.code == .invalidInput)
                #expect(error?.message == message)
            }
            #expect(try nodes.fetch(stored.id!) == stored)
            let missing = #expect(throws: StoreError.self) {
                try nodes.update(NodeVO(id: 42, name: "ghost", x: 0, y: 0), columns: ["x"])
            }
            #expect(missing?.code == .notFound)
            // Rolled back with its transaction.
            struct Abort: Error {}
            #expect(throws: Abort.self) {
                try store.write { tx in
                    try tx.update(node, columns: ["x"])
                    throw Abort()
                }
            }
            #expect(try nodes.fetch(stored.id!) == stored)
        }
    }

    @Test func deleteByKeyAndByRecord() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            let a = try nodes.insert(NodeVO(name: "a", x: 0, y: 0))
            let b = try nodes.insert(NodeVO(name: "b", x: 0, y: 0))
            #expect(try nodes.delete(key: a.id!))
            #expect(try !nodes.delete(key: a.id!))
            #expect(try nodes.delete(b))
            #expect(try nodes.count() == 0)
        }
    }

    @Test func constraintViolationsAreTypedAndChangeNothing() throws {
        try withTemporaryStore(configuration: Sample.configuration) { store, _ in
            let samples = store.repository(Sample.self)
            try samples.insert(Sample.make(1))
            let before = try store.read { try $0.fetchRows("SELECT * FROM samples") }
            // UNIQUE
            let unique = #expect(throws: StoreError.self) {
                try store.write { tx in
                    try tx.insert(Sample.make(2))
                    try tx.insert(Sample.make(1))  // same text: UNIQUE fails, and the insert of 2 must roll back too
                }
            }
            #expect(unique?.code == .constraint)
            #expect(unique?.sqliteCode == 2067)
            #expect(unique?.message.contains("samples.text") == true)
            #expect(unique?.description.contains("text 1") == false)  // bound values stay out of messages
            // CHECK
            let check = #expect(throws: StoreError.self) {
                try store.write { tx in try tx.execute("UPDATE samples SET mood = 'angry'") }
            }
            #expect(check?.code == .constraint)
            // NOT NULL
            let notNull = #expect(throws: StoreError.self) {
                try store.write { tx in try tx.execute("INSERT INTO nodes (name, x) VALUES ('no y', 1)") }
            }
            #expect(notNull?.code == .constraint)
            #expect(try store.read { try $0.fetchRows("SELECT * FROM samples") } == before)
            #expect(try store.repository(NodeVO.self).count() == 0)
            // The StoreError.Code pattern matches thrown errors.
            do {
                try samples.insert(Sample.make(1))
                Issue.record("expected a constraint error")
            } catch StoreError.Code.constraint {
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func strictTablesRejectWrongTypes() throws {
        try withTemporaryStore { store, _ in
            let error = #expect(throws: StoreError.self) {
                try store.write { tx in try tx.execute("INSERT INTO nodes (name, x, y) VALUES ('n', 'left', 0)") }
            }
            #expect(error?.code == .constraint)  // SQLITE_CONSTRAINT_DATATYPE
        }
    }

    @Test func decodingAWrongTypeNamesTheColumn() throws {
        try withTemporaryStore { store, _ in
            struct Wrong: Decodable { var name: Int }
            try store.repository(NodeVO.self).insert(NodeVO(name: "text, not a number", x: 0, y: 0))
            let error = #expect(throws: StoreError.self) {
                try store.read { try $0.fetchAll(Wrong.self, sql: "SELECT name FROM nodes") }
            }
            #expect(error?.code == .invalidInput)
            #expect(error?.message.contains("column name: expected INTEGER, found TEXT") == true)
        }
    }

    @Test func queryFiltersOrderAndLimit() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            for index in 0..<20 {
                try nodes.insert(NodeVO(name: "n\(index)", x: Double(index), y: Double(index % 3), color: index < 5 ? "#111111" : "#222222"))
            }
            let query = RecordQuery<NodeVO>().filter("x", .greaterThanOrEqual, 10.0).filter("y", equals: 1.0)
                .order(by: "x", descending: true)
            #expect(try nodes.fetchAll(query).map(\.name) == ["n19", "n16", "n13", "n10"])
            #expect(try nodes.count(query) == 4)
            #expect(try nodes.fetchAll(query.limit(2)).map(\.name) == ["n19", "n16"])
            #expect(try nodes.count(query.limit(2)) == 2)
            #expect(try nodes.fetchOne(query)?.name == "n19")
            #expect(try nodes.fetchAll(query.limit(2).offset(1)).map(\.name) == ["n16", "n13"])
            #expect(try nodes.count(RecordQuery().filter("name", in: ["n1", "n2", "zzz"])) == 2)
            #expect(try nodes.count(RecordQuery().filter("name", in: [String]())) == 0)
            #expect(try nodes.count(RecordQuery().filter("name", .like, "N1%")) == 11)
            #expect(try nodes.count(RecordQuery().filter(sql: "x + y > ?", arguments: [17])) == 3)
            #expect(try nodes.count(RecordQuery().filter("color", .notEqual, "#111111")) == 15)
            #expect(try nodes.deleteAll(RecordQuery().filter("x", .lessThan, 5.0)) == 5)
            #expect(try nodes.deleteAll(RecordQuery().order(by: "x").limit(3)) == 3)
            #expect(try nodes.fetchAll(RecordQuery().order(by: "x").limit(1)).first?.name == "n8")
        }
    }

    @Test func filterValuesAreBoundNotSpliced() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            try nodes.insert(NodeVO(name: "x'); DROP TABLE nodes; --", x: 0, y: 0))
            #expect(try nodes.count(RecordQuery().filter("name", equals: "x'); DROP TABLE nodes; --")) == 1)
            // A hostile column name is quoted as an identifier: it fails as an unknown column, nothing else.
            let error = #expect(throws: StoreError.self) {
                try nodes.count(RecordQuery().filter("name\" = 1; DROP TABLE nodes; --", equals: 1))
            }
            #expect(error?.message.contains("no such column") == true)
            #expect(try nodes.count() == 1)
        }
    }

    @Test func keysetPagingIsStableWhileOthersInsert() throws {
        try withTemporaryStore { store, _ in
            let nodes = store.repository(NodeVO.self)
            // Duplicate sort values: the primary key breaks ties.
            for index in 0..<25 { try nodes.insert(NodeVO(name: "n\(index)", x: Double(index / 2), y: 0)) }
            let query = RecordQuery<NodeVO>().order(by: "x", descending: true).limit(10)
            var seen: [Int64] = []
            var page = try nodes.fetchAll(query)
            while let last = page.last {
                seen += page.map { $0.id! }
                // Rows inserted before the cursor position must not shift later pages.
                try nodes.insert(NodeVO(name: "late", x: 100, y: 0))
                page = try nodes.fetchAll(query.after(last))
            }
            #expect(seen.count == 25)
            #expect(Set(seen).count == 25)
            let expected = try store.read {
                try $0.fetchRows("SELECT id FROM nodes WHERE name <> 'late' ORDER BY x DESC, id DESC")
            }.map { $0.value("id", as: Int64.self)! }
            #expect(seen == expected)
        }
    }

    @Test func rawSQLWithBoundArguments() throws {
        try withTemporaryStore { store, _ in
            let changed = try store.write { tx in
                try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)", ["raw", 1.0, 2])
                return try tx.execute("UPDATE nodes SET x = x + ? WHERE name = ?", [10, "raw"])
            }
            #expect(changed == 1)
            let rows = try store.read { try $0.fetchRows("SELECT name, x FROM nodes WHERE x > ?", [5]) }
            #expect(rows == [Row(columns: ["name", "x"], values: [.text("raw"), .real(11)])])
            #expect(rows[0].value("x", as: Double.self) == 11)
            let decoded = try store.read { try $0.fetchAll(NodeVO.self, sql: "SELECT * FROM nodes") }
            #expect(decoded.first?.name == "raw")
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM nodes WHERE 0") } == .integer(0))
            #expect(try store.read { try $0.fetchValue("SELECT 1 WHERE 0") } == nil)
        }
    }

    @Test func wrongArgumentCountIsAnInputError() throws {
        try withTemporaryStore { store, _ in
            let error = #expect(throws: StoreError.self) {
                try store.write { tx in try tx.execute("INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)", ["only one"]) }
            }
            #expect(error?.code == .invalidInput)
        }
    }
}
