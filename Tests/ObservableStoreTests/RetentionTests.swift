import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// Pruning the change log by age, alone and with the count limit (the count limit and durable listeners
/// are covered in DurableListenerTests).
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct RetentionTests {
    /// A store that prunes only when asked, with `policy`'s limits, holding `commits` one-row commits
    /// (sequences 1...commits); the commits in `old` are then dated in the year 2000.
    private func withLog(
        _ policy: RetentionPolicy, commits: Int, old: [Int], _ body: (SQLiteStore) throws -> Void
    ) throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.retention = policy
        try withTemporaryStore(configuration: configuration) { store, _ in
            for index in 0..<commits {
                try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0))
            }
            if !old.isEmpty {
                try store.write { tx in
                    let list = old.map(String.init).joined(separator: ", ")
                    try tx.execute("UPDATE _store_commits SET committed_at = '2000-01-01T00:00:00.000Z' WHERE seq IN (\(list))")
                }
            }
            try body(store)
        }
    }

    private func keptSequences(_ store: SQLiteStore) throws -> [Int64] {
        try store.read { try $0.fetchRows("SELECT seq FROM _store_commits ORDER BY seq") }
            .compactMap { $0["seq"].flatMap(Int64.fromDatabaseValue) }
    }

    private static func byAge(minimumKeptCommits: Int? = nil) -> RetentionPolicy {
        RetentionPolicy(minimumKeptCommits: minimumKeptCommits, minimumKeptAge: .seconds(3600), hardCapCommits: nil, pruneInterval: 1_000)
    }

    @Test func commitsOlderThanTheAgeLimitGoAndYoungerOnesStay() throws {
        try withLog(Self.byAge(), commits: 6, old: [1, 2, 3]) { store throws in
            #expect(try store.pruneChangeLog() == 3)
            #expect(try keptSequences(store) == [4, 5, 6])
            #expect(try store.pruneChangeLog() == 0)
        }
    }

    @Test func nothingOldNothingPruned() throws {
        try withLog(Self.byAge(), commits: 4, old: []) { store throws in
            #expect(try store.pruneChangeLog() == 0)
            #expect(try keptSequences(store) == [1, 2, 3, 4])
        }
    }

    @Test func theNewestCommitStaysEvenWhenOld() throws {
        try withLog(Self.byAge(), commits: 3, old: [1, 2, 3]) { store throws in
            #expect(try store.pruneChangeLog() == 2)
            #expect(try keptSequences(store) == [3])
        }
    }

    @Test func aCommitGoesOnlyWhenBothLimitsLetItGo() throws {
        // The count limit keeps the last 4 (3...6), the age limit keeps 5 and 6: only 1 and 2 go.
        try withLog(Self.byAge(minimumKeptCommits: 4), commits: 6, old: [1, 2, 3, 4]) { store throws in
            #expect(try store.pruneChangeLog() == 2)
            #expect(try keptSequences(store) == [3, 4, 5, 6])
        }
        // The age limit keeps 2...6, the count limit would let 1 and 2 go: only 1 goes.
        try withLog(Self.byAge(minimumKeptCommits: 4), commits: 6, old: [1]) { store throws in
            #expect(try store.pruneChangeLog() == 1)
            #expect(try keptSequences(store) == [2, 3, 4, 5, 6])
        }
    }

    @Test func anOldCommitAfterAYoungOneStays() throws {
        // Commit 4's clock was behind: it is dated older than commit 3, which must stay, and so does 4.
        try withLog(Self.byAge(), commits: 6, old: [1, 2, 4]) { store throws in
            #expect(try store.pruneChangeLog() == 2)
            #expect(try keptSequences(store) == [3, 4, 5, 6])
        }
    }
}
