import Foundation
import StoreSQLite
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// The listener index: a commit reaches exactly the listeners a scan of every filter would choose.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ListenerIndexTests {
    /// One listener of the mixed set: its name, filter, delivery and what it received.
    private struct Subject {
        let name: String
        let filter: ChangeFilter
        let immediate: Bool
        let recorder = EventRecorder()
    }

    /// Filters of every kind the index treats differently, each registered immediate and queued.
    private static let filters: [(String, ChangeFilter)] = [
        ("all", .all),
        ("nodes", .table("nodes")),
        ("users", .table("user_info")),
        ("both-tables", ChangeFilter(tables: ["nodes", "user_info"])),
        ("node-2", ChangeFilter(tables: ["nodes"], keys: [.integer(2)])),
        ("nodes-2-3", ChangeFilter(tables: ["nodes"], keys: [.integer(2), .integer(3)])),
        ("node-9", ChangeFilter(tables: ["nodes"], keys: [.integer(9)])),  // never written
        ("me", ChangeFilter(tables: ["user_info"], keys: [.text("me")])),
        ("key-2-anywhere", ChangeFilter(tables: ["nodes", "user_info"], keys: [.integer(2), .text("you")])),
        ("node-3-moves", ChangeFilter(tables: ["nodes"], keys: [.integer(3)], columns: ["x"])),
        ("only-canvas", ChangeFilter(origins: ["canvas"])),
        ("not-canvas", ChangeFilter(excludedOrigins: ["canvas"])),
        ("node-2-not-canvas", ChangeFilter(tables: ["nodes"], keys: [.integer(2)], excludedOrigins: ["canvas"])),
        ("no-table", ChangeFilter(tables: [])),  // schema changes only
        ("no-key", ChangeFilter(tables: ["nodes"], keys: [])),  // schema changes only
    ]

    /// Commits of every shape: one row, several rows and tables, origins, a key change, a delete, a schema change.
    private func writeMixedCommits(_ store: SQLiteStore, round: Int) throws {
        let nodes = store.repository(NodeVO.self)
        try store.write(origin: round.isMultiple(of: 2) ? "canvas" : nil) { tx in
            try tx.execute("INSERT OR REPLACE INTO nodes (id, name, x, y) VALUES (2, 'two', 0, 0)")
        }
        try nodes.upsert(NodeVO(id: 3, name: "three-\(round)", x: 0, y: 0))
        try store.write { tx in
            try tx.execute("UPDATE nodes SET x = x + 1 WHERE id IN (2, 3)")
            try tx.execute("INSERT OR REPLACE INTO user_info (id, name) VALUES ('me', 'Ada')")
        }
        try store.write(origin: "canvas") { tx in
            try tx.execute("UPDATE nodes SET color = '#00000\(round % 10)' WHERE id = 3")
        }
        try store.write { tx in
            try tx.execute("INSERT INTO nodes (id, name, x, y) VALUES (100 + ?, 'moving', 0, 0)", [round])
            try tx.execute("UPDATE nodes SET id = 200 + ? WHERE id = 100 + ?", [round, round])  // delete + insert
            try tx.execute("INSERT OR REPLACE INTO user_info (id, name) VALUES ('you', 'Bo')")
        }
        try store.write { tx in try tx.execute("DELETE FROM nodes WHERE id = 200 + ?", [round]) }
        try store.write { tx in try tx.execute("CREATE TABLE IF NOT EXISTS extra_\(round) (id INTEGER PRIMARY KEY)") }
    }

    /// What a scan would deliver: the commits the filter lets through, as "sequence: change summaries".
    private func expected(_ filter: ChangeFilter, in commits: [Commit]) -> [String] {
        commits.compactMap(filter.apply).map(describe)
    }

    private func describe(_ commit: Commit) -> String {
        "\(commit.sequence): \(commit.changes.map(\.summary).joined(separator: "; "))\(commit.schemaChanged ? " schema" : "")"
    }

    private func received(_ subject: Subject) -> [String] { subject.recorder.commits.map(describe) }

    /// Waits until every subject received what a scan gives it among `commits`, then checks that it is exactly that.
    private func expectScanEquivalence(_ subjects: [Subject], _ commits: [Commit], sourceLocation: SourceLocation = #_sourceLocation) {
        for subject in subjects {
            let wanted = expected(subject.filter, in: commits)
            subject.recorder.wait(for: wanted.count)
            #expect(received(subject) == wanted, "\(subject.name)", sourceLocation: sourceLocation)
        }
    }

    @Test func theIndexDeliversWhatAScanOfEveryFilterWould() throws {
        try withTemporaryStore { store, _ in
            let reference = EventRecorder()
            var tokens = [store.listen("reference", options: ListenerOptions(immediate: true)) { reference.record($0) }]
            var subjects: [Subject] = []
            for (name, filter) in ListenerIndexTests.filters {
                for immediate in [true, false] {
                    let subject = Subject(name: "\(name)-\(immediate ? "now" : "queued")", filter: filter, immediate: immediate)
                    tokens.append(
                        store.listen(subject.name, filter: filter, options: ListenerOptions(immediate: immediate)) {
                            subject.recorder.record($0)
                        })
                    subjects.append(subject)
                }
            }
            for round in 0..<3 { try writeMixedCommits(store, round: round) }
            expectScanEquivalence(subjects, reference.commits)

            // Replace half of them by name with other filters, remove a quarter by name, cancel a quarter's tokens.
            let before = reference.commits.count
            var replaced: [Subject] = []
            for (index, subject) in subjects.enumerated() {
                switch index % 4 {
                case 0, 1:
                    let filter = ListenerIndexTests.filters[(index * 7 + 3) % ListenerIndexTests.filters.count].1
                    let replacement = Subject(name: subject.name, filter: filter, immediate: !subject.immediate)
                    tokens.append(
                        store.listen(subject.name, filter: filter, options: ListenerOptions(immediate: replacement.immediate)) {
                            replacement.recorder.record($0)
                        })
                    replaced.append(replacement)
                case 2:
                    #expect(store.removeListener(subject.name))
                default:
                    tokens[index + 1].cancel()
                }
            }
            #expect(store.listenerNames.count == 1 + replaced.count)
            for round in 3..<6 { try writeMixedCommits(store, round: round) }
            let after = Array(reference.commits.dropFirst(before))
            expectScanEquivalence(replaced, after)
            // The replaced, removed and cancelled listeners got nothing more.
            expectScanEquivalence(subjects, Array(reference.commits.prefix(before)))
            withExtendedLifetime(tokens) {}
        }
    }

    @Test func tenThousandKeyListenersEachGetOnlyTheirRow() throws {
        try withTemporaryStore { store, _ in
            let count = 10_000
            let received = (0..<count).map { _ in EventRecorder() }
            var tokens = (0..<count).map { index in
                store.listen("row-\(index + 1)", filter: ChangeFilter(tables: ["nodes"], keys: [.integer(Int64(index + 1))])) {
                    received[index].record($0)
                }
            }
            #expect(store.listenerNames.count == count)
            for id in [1, 5_000, 10_000] { try store.repository(NodeVO.self).insert(NodeVO(id: Int64(id), name: "n", x: 0, y: 0)) }
            try store.write { tx in try tx.execute("UPDATE nodes SET x = 1 WHERE id IN (1, 10000)") }
            #expect(received[0].wait(for: 2) && received[9_999].wait(for: 2) && received[4_999].wait(for: 1))
            #expect(received[0].commits.map(\.sequence) == [1, 4])
            #expect(received[4_999].commits.map(\.sequence) == [2])
            #expect(received[9_999].commits.map(\.sequence) == [3, 4])
            #expect(received[9_999].changes.map(\.summary) == ["insert nodes 10000", "update nodes 10000"])

            // Replace one by name with a listener of another key; the old one gets nothing more.
            let moved = EventRecorder()
            tokens.append(store.listen("row-1", filter: ChangeFilter(tables: ["nodes"], keys: [.integer(2)])) { moved.record($0) })
            try store.repository(NodeVO.self).insert(NodeVO(id: 2, name: "two", x: 0, y: 0))  // 5
            try store.write { tx in try tx.execute("UPDATE nodes SET x = 2 WHERE id = 1") }  // 6
            #expect(moved.wait(for: 1))
            #expect(moved.commits.map(\.sequence) == [5])
            // Commit 7 matches listener 5000 only.
            try store.write { tx in try tx.execute("UPDATE nodes SET x = 7 WHERE id = 5000") }
            #expect(received[4_999].wait(for: 2))
            #expect(received[0].commits.map(\.sequence) == [1, 4])
            #expect(received[1].wait(for: 1))
            #expect(received[1].commits.map(\.sequence) == [5])  // "row-2" and its replacement both had node 2
            let others = received.indices.filter { ![0, 1, 4_999, 9_999].contains($0) }
            #expect(others.allSatisfy { received[$0].all.isEmpty })

            for token in tokens { token.cancel() }
            tokens.removeAll()
            #expect(store.listenerNames.isEmpty)
            try store.write { tx in try tx.execute("UPDATE nodes SET x = 8 WHERE id IN (1, 2, 5000, 10000)") }
            #expect(received[4_999].commits.map(\.sequence) == [2, 7])
        }
    }

    @Test func aListenerUnderSeveralKeysAndTablesGetsACommitOnce() throws {
        try withTemporaryStore { store, _ in
            let (recorder, token) = store.record(
                "many", filter: ChangeFilter(tables: ["nodes", "user_info"], keys: [.integer(1), .integer(2), .text("me")]))
            try store.write { tx in
                try tx.execute("INSERT INTO nodes (id, name, x, y) VALUES (1, 'a', 0, 0), (2, 'b', 0, 0), (3, 'c', 0, 0)")
                try tx.execute("INSERT INTO user_info (id, name) VALUES ('me', 'Ada')")
                try tx.execute("UPDATE nodes SET x = 1 WHERE id IN (1, 2)")
            }
            #expect(recorder.all.count == 1)
            #expect(
                recorder.changes.map(\.summary) == [
                    "insert nodes 1", "insert nodes 2", "insert user_info 'me'", "update nodes 1", "update nodes 2",
                ])
            withExtendedLifetime(token) {}
        }
    }
}
