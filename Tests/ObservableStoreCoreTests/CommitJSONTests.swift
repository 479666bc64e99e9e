import Foundation
import ObservableStoreCore
import TestScheduling
import Testing

/// The JSON text of commits and changes: the shape `storectl watch` prints and event streams send.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct CommitJSONTests {
    private let date = Date(timeIntervalSince1970: 1_795_698_000.123)  // 2026-11-26T13:00:00.123Z

    private func change(_ operation: Change.Operation, key: [DatabaseValue] = [.integer(5)]) -> Change {
        let new = Row(columns: ["id", "name", "x"], values: [.integer(5), .text("a\"b\n"), .real(10)])
        return Change(
            table: "nodes", operation: operation, key: key, old: operation == .insert ? nil : new,
            new: operation == .delete ? nil : new, changedColumns: operation == .update ? ["x"] : ["id", "name", "x"])
    }

    @Test func anInsertCarriesEveryColumnAnUpdateTheChangedOnesADeleteNone() {
        #expect(
            CommitJSON.changeMembers(change(.insert))
                == #""table":"nodes","op":"insert","id":5,"changes":{"id":5,"name":"a\"b\n","x":10.0}"#)
        #expect(CommitJSON.changeMembers(change(.update)) == #""table":"nodes","op":"update","id":5,"changes":{"x":10.0}"#)
        #expect(CommitJSON.changeMembers(change(.delete)) == #""table":"nodes","op":"delete","id":5"#)
        #expect(
            CommitJSON.changeMembers(change(.delete, key: [.text("a"), .integer(2)]))
                == #""table":"nodes","op":"delete","id":["a",2]"#)
    }

    @Test func aCommitIsOneObjectWithItsChangesInOrder() {
        let commit = Commit(
            sequence: 12, committedAt: date, origin: "node-board", changes: [change(.update), change(.delete)],
            schemaChanged: false)
        #expect(
            CommitJSON.object(commit)
                == #"{"seq":12,"ts":"2026-11-26T13:00:00.123Z","origin":"node-board","changes":["#
                + #"{"table":"nodes","op":"update","id":5,"changes":{"x":10.0}},{"table":"nodes","op":"delete","id":5}]}"#)
    }

    @Test func aSchemaChangeAndAPieceAreSaid() {
        let commit = Commit(
            sequence: 3, committedAt: date, origin: nil, changes: [], schemaChanged: true,
            piece: Commit.Piece(index: 1, count: 4))
        #expect(
            CommitJSON.object(commit)
                == #"{"seq":3,"ts":"2026-11-26T13:00:00.123Z","origin":null,"schema_changed":true,"piece":[1,4],"changes":[]}"#)
    }

    @Test func valuesAreWrittenAsTheirJSONType() {
        #expect(JSONText.value(.null) == "null")
        #expect(JSONText.value(.integer(-7)) == "-7")
        #expect(JSONText.value(.real(-0.0)) == "-0.0")
        #expect(JSONText.value(.real(2.5)) == "2.5")
        #expect(JSONText.value(.real(.infinity)) == #""inf""#)
        #expect(JSONText.value(.blob(Data([1, 2, 3]))) == #"{"$base64":"AQID"}"#)
        #expect(JSONText.string("\u{1}\t\u{2028}") == #""\u0001\t\u2028""#)
    }
}
