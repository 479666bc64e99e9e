import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Transactions too large for one change-log row: logged in pieces (`_store_commit_pieces`), captured in bounded
/// memory, delivered piece by piece as one commit. The writer's length limit is lowered so that 20,000 rows
/// (about 2 MB of changes) exceed it.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ChangeLogPiecesTests {
    /// The writer's SQLITE_LIMIT_LENGTH in these tests: 256 KiB, so pieces of at most 128 KiB.
    static let lengthLimit = 256 * 1024
    static let rows = 20_000

    static var configuration: SQLiteStoreConfiguration {
        var configuration = SQLiteStoreConfiguration()
        configuration.writerLengthLimit = lengthLimit
        return configuration
    }

    /// Inserts nodes `first...last` (id = x = i, name "node i") in one statement of `transaction`.
    static func insertNodes(_ first: Int, _ last: Int, in transaction: SQLiteTransaction) throws {
        try transaction.execute(
            "WITH RECURSIVE c(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM c WHERE i < ?) "
                + "INSERT INTO nodes (id, name, x, y) SELECT i, 'node ' || i, i, 0 FROM c", [first, last])
    }

    /// The keys of nodes `range`, as changes carry them.
    static func keys(_ range: ClosedRange<Int>) -> [[DatabaseValue]] { range.map { [.integer(Int64($0))] } }

    /// `commits` are every piece of commit `sequence`, in order, and hold the inserts of `keys` in order.
    static func expectWhole(
        _ commits: [Commit], sequence: Int64, keys: [[DatabaseValue]], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let count = commits.first?.piece.count ?? 0
        #expect(count > 1, "not in pieces", sourceLocation: sourceLocation)
        #expect(commits.map(\.sequence) == Array(repeating: sequence, count: commits.count), sourceLocation: sourceLocation)
        #expect(commits.map(\.piece) == (0..<count).map { Commit.Piece(index: $0, count: count) }, sourceLocation: sourceLocation)
        let changes = commits.flatMap(\.changes)
        #expect(changes.count == keys.count && changes.map(\.key) == keys, sourceLocation: sourceLocation)
        #expect(changes.allSatisfy { $0.operation == .insert && $0.table == "nodes" }, sourceLocation: sourceLocation)
    }

    /// Every commit row has all its piece rows, no piece row lacks its commit, and sequences have no gap.
    static func expectConsistentLog(_ store: SQLiteStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let incomplete = try store.read {
            try $0.fetchValue(
                "SELECT count(*) FROM _store_commits c WHERE piece_count - 1 != "
                    + "(SELECT count(*) FROM _store_commit_pieces p WHERE p.seq = c.seq)")
        }
        let orphans = try store.read {
            try $0.fetchValue(
                "SELECT count(*) FROM _store_commit_pieces p WHERE NOT EXISTS (SELECT 1 FROM _store_commits c WHERE c.seq = p.seq) "
                    + "OR p.piece < 1 OR p.piece >= (SELECT piece_count FROM _store_commits c WHERE c.seq = p.seq)")
        }
        let gaps = try store.read { try $0.fetchValue("SELECT max(seq) - min(seq) + 1 - count(*) FROM _store_commits") }
        #expect(incomplete == .integer(0) && orphans == .integer(0) && gaps == .integer(0), sourceLocation: sourceLocation)
    }

    @Test func aTransactionLargerThanTheLengthLimitIsLoggedInPiecesAndDeliveredWhole() throws {
        try withTemporaryStore(configuration: Self.configuration) { store, _ in
            let (immediate, immediateToken) = store.record("immediate")
            let queued = EventRecorder()
            let queuedToken = store.listen("queued") { queued.record($0) }
            let (otherTable, otherToken) = store.record("other", filter: .table("user_info"))
            let (oneKey, oneKeyToken) = store.record("one-key", filter: ChangeFilter(tables: ["nodes"], keys: [.integer(5000)]))
            try store.write { try Self.insertNodes(1, Self.rows, in: $0) }
            let sequence = try store.lastSequence()

            // The log: piece 0 in the commit row, the others in `_store_commit_pieces`, each under the limit.
            let pieceCount = try #require(
                try store.read { try $0.fetchValue("SELECT piece_count FROM _store_commits WHERE seq = ?", [sequence]) }
                    .flatMap(Int64.fromDatabaseValue))
            #expect(pieceCount > 8)
            let largest = try store.read {
                try $0.fetchValue(
                    "SELECT max(size) FROM (SELECT length(payload) AS size FROM _store_commits UNION ALL "
                        + "SELECT length(payload) FROM _store_commit_pieces)")
            }.flatMap(Int64.fromDatabaseValue) ?? 0
            #expect(largest > 0 && largest < Int64(Self.lengthLimit))
            #expect(try store.read { try $0.fetchValue("SELECT change_count FROM _store_commits WHERE seq = ?", [sequence]) } == .integer(Int64(Self.rows)))
            try Self.expectConsistentLog(store)

            // Listeners: every piece, in order, once; the last piece to a listener that got an earlier one.
            #expect(queued.wait(for: Int(pieceCount)))
            Self.expectWhole(immediate.commits, sequence: sequence, keys: Self.keys(1...Self.rows))
            Self.expectWhole(queued.commits, sequence: sequence, keys: Self.keys(1...Self.rows))
            #expect(queued.count == Int(pieceCount) && immediate.count == Int(pieceCount))
            #expect(otherTable.all.isEmpty)
            let keyed = oneKey.commits
            #expect(keyed.count == 2 && keyed.first?.changes.map(\.key) == [[.integer(5000)]])
            #expect(keyed.last?.isLastPiece == true && keyed.last?.changes.isEmpty == true)

            // Reading the log: pages of pieces, continued with commits(following:).
            var read: [Commit] = []
            var page = try store.commits(after: sequence - 1, limit: 3)
            #expect(page.count == 3)
            while let last = page.last {
                read += page
                page = try store.commits(following: last, limit: 3)
            }
            Self.expectWhole(read, sequence: sequence, keys: Self.keys(1...Self.rows))
            withExtendedLifetime((immediateToken, queuedToken, otherToken, oneKeyToken)) {}
        }
    }

    @Test func savepointRollbackAndAFailedStatementAcrossSealedPiecesLeaveExactlyTheSurvivingChanges() throws {
        struct Undo: Error {}
        try withTemporaryStore(configuration: Self.configuration) { store, _ in
            let (recorder, token) = store.record()
            try store.write { tx in
                try Self.insertNodes(1, 3_000, in: tx)
                // A savepoint whose changes fill several pieces, rolled back.
                #expect(throws: Undo.self) {
                    try tx.savepoint { tx in
                        try Self.insertNodes(3_001, 9_000, in: tx)
                        throw Undo()
                    }
                }
                // A statement that fails on its last row (a duplicate key) after changing thousands of rows.
                #expect(throws: StoreError.self) {
                    try tx.execute(
                        "WITH RECURSIVE c(i) AS (SELECT 10001 UNION ALL SELECT i + 1 FROM c WHERE i < 16000) "
                            + "INSERT INTO nodes (id, name, x, y) SELECT i, 'n', 0, 0 FROM c UNION ALL SELECT 1, 'dup', 0, 0")
                }
                try Self.insertNodes(3_001, 4_000, in: tx)
            }
            let sequence = try store.lastSequence()
            #expect(try store.read { try $0.fetchValue("SELECT change_count FROM _store_commits WHERE seq = ?", [sequence]) } == .integer(4_000))
            Self.expectWhole(recorder.commits, sequence: sequence, keys: Self.keys(1...4_000))
            var read: [Commit] = []
            var page = try store.commits(after: sequence - 1)
            while let last = page.last {
                read += page
                page = try store.commits(following: last)
            }
            Self.expectWhole(read, sequence: sequence, keys: Self.keys(1...4_000))
            try Self.expectConsistentLog(store)
            withExtendedLifetime(token) {}
        }
    }

    /// Another process's big commit reaches this process's listeners (through the feed), a durable listener, an
    /// observed value and `storectl watch`, whole.
    @Test(.tags(.processes)) func anotherProcesssBigCommitReachesEveryKindOfListenerWhole() async throws {
        try await withTemporaryStore(configuration: Self.configuration) { store, path in
            let queued = EventRecorder()
            let queuedToken = store.listen("queued", filter: .table("nodes")) { queued.record($0) }
            let durable = Recorder<Commit>()
            let durableToken = try store.listenDurably("durable", filter: .table("nodes")) { event in
                if case .commit(let delivery) = event { durable.append(delivery.commit) }
            }
            let values = try store.values(of: RecordQuery<NodeVO>().filter("x", .greaterThan, 0.0))
            let latest = Locked<(sequence: Int64, count: Int)>((0, 0))
            let counts = Recorder<Int>()
            let consumer = Task {
                for try await element in values {
                    counts.append(element.value.count)
                    latest.value = (element.sequence, element.value.count)
                }
            }
            defer { consumer.cancel() }

            let writer = try run("store-fixture", ["big-write", path, "\(Self.rows)", "\(64 * 1024)"])
            #expect(writer.status == 0, "\(writer.stderr)")
            let sequence = try store.lastSequence()
            try await waitUntil("every piece to the listeners") {
                queued.commits.last?.isLastPiece == true && durable.all.last?.isLastPiece == true
            }
            Self.expectWhole(queued.commits, sequence: sequence, keys: Self.keys(1...Self.rows))
            Self.expectWhole(durable.all, sequence: sequence, keys: Self.keys(1...Self.rows))
            try await waitUntil("the observed value to show the commit") { latest.value.sequence >= sequence }
            #expect(latest.value.count == Self.rows)
            // Never a value with part of the commit applied.
            #expect(counts.all.allSatisfy { $0 == 0 || $0 == Self.rows }, "\(counts.all)")
            #expect(try store.durableListeners().first { $0.name == "durable" }?.cursor == sequence)

            let watch = try run(
                "storectl", ["--db", path, "watch", "nodes", "--since", "\(sequence - 1)", "--count", "\(Self.rows)", "--timeout", "30s"],
                timeout: 90)
            #expect(watch.status == 0, "\(watch.stderr)")
            let lines = watch.stdout.split(separator: "\n")
            #expect(lines.count == Self.rows && lines.allSatisfy { $0.hasPrefix("{\"seq\":\(sequence),") })
            #expect(lines.last?.contains("\"id\":\(Self.rows)") == true)
            withExtendedLifetime((queuedToken, durableToken)) {}
        }
    }

    /// `storectl check` verifies that every commit has its pieces: a missing piece row is a problem (exit 9).
    @Test(.tags(.processes)) func checkReportsACommitMissingAPiece() throws {
        try withTemporaryStore(configuration: Self.configuration) { store, path in
            try store.write { try Self.insertNodes(1, 5_000, in: $0) }
            let sequence = try store.lastSequence()
            #expect(try store.changeLogPieceProblems().isEmpty)
            let ok = try run("storectl", ["--db", path, "check"])
            #expect(ok.status == 0 && ok.stdout == "ok\n", "\(ok.stdout)\(ok.stderr)")
            let pieces = try #require(
                try store.read { try $0.fetchValue("SELECT piece_count FROM _store_commits WHERE seq = ?", [sequence]) }
                    .flatMap(Int64.fromDatabaseValue))
            try store.write { try $0.execute("DELETE FROM _store_commit_pieces WHERE seq = ? AND piece = 1", [sequence]) }
            let expected = "change log: commit \(sequence) is logged in \(pieces) pieces but has \(pieces - 2) of its \(pieces - 1) piece rows (\(pieces - 2) in all)"
            #expect(try store.changeLogPieceProblems() == [expected])
            let damaged = try run("storectl", ["--db", path, "check"])
            #expect(damaged.status == 9 && damaged.stdout.contains(expected), "\(damaged.stdout)\(damaged.stderr)")
        }
    }

    /// A durable listener that stops after a piece resumes with the next one: with acknowledgements in its own
    /// writes, every change is handled exactly once.
    @Test func aDurableListenerStoppedInsideACommitResumesAtTheNextPiece() throws {
        try withTemporaryStore(configuration: Self.configuration) { store, _ in
            try store.write { try $0.execute("CREATE TABLE consumed (id INTEGER PRIMARY KEY)") }
            let received = Recorder<Commit.Piece>()
            let tokenBox = Locked<ListenerToken?>(nil)
            let stopAfter = 2
            let handler: @Sendable (DurableEvent) throws -> Void = { event in
                guard case .commit(let delivery) = event else { return }
                try store.write { tx in
                    for change in delivery.commit.changes { try tx.execute("INSERT INTO consumed (id) VALUES (?)", [change.key[0]]) }
                    try delivery.acknowledge(in: tx)
                }
                received.append(delivery.commit.piece)
                if delivery.commit.piece.index == stopAfter { tokenBox.value?.cancel() }
            }
            tokenBox.value = try store.listenDurably("exact", filter: .table("nodes"), handler: handler)
            try store.write { try Self.insertNodes(1, Self.rows, in: $0) }
            let sequence = try store.lastSequence()
            try waitUntil("the listener to stop") { received.all.last?.index == stopAfter }
            usleep(100_000)  // nothing more comes once stopped
            #expect(received.all.map(\.index) == Array(0...stopAfter))
            #expect(try store.read { try $0.fetchValue("SELECT cursor_piece FROM _store_listeners WHERE name = 'exact'") } == .integer(Int64(stopAfter + 1)))

            tokenBox.value = try store.listenDurably("exact", filter: .table("nodes"), handler: handler)
            try waitUntil("the rest of the commit") { received.all.last?.isLast == true }
            let count = received.all.last!.count
            #expect(received.all.map(\.index) == Array(0...stopAfter) + Array((stopAfter + 1)..<count))
            #expect(try store.read { try $0.fetchValue("SELECT count(*) FROM consumed") } == .integer(Int64(Self.rows)))
            // Its own writes (to `consumed`) come after, and do not match its filter.
            #expect(try store.durableListeners().first { $0.name == "exact" }?.cursor ?? 0 >= sequence)
            #expect(try store.read { try $0.fetchValue("SELECT cursor_piece FROM _store_listeners WHERE name = 'exact'") } == .integer(0))
            tokenBox.value?.cancel()
        }
    }

    /// A durable listener in a child process killed (SIGKILL) between two pieces of a commit resumes, in a new
    /// process, with the next piece: acknowledging in its own transactions, it records every key exactly once.
    @Test(.tags(.processes)) func aDurableListenerKilledInsideACommitResumesWithNoLossAndNoDuplicate() throws {
        try withTemporaryStore(configuration: Self.configuration) { store, path in
            try store.write { try Self.insertNodes(1, Self.rows, in: $0) }
            let consumer = try RunningProcess("store-fixture", ["consume-pieces", path, "killed", "40"])
            // Killed once a few pieces are acknowledged, while it sleeps or handles the next one.
            try waitUntil(timeout: 60, "three pieces acknowledged") {
                try store.read { try $0.fetchValue("SELECT cursor_piece FROM _store_listeners WHERE name = 'killed'") }
                    .flatMap(Int64.fromDatabaseValue) ?? 0 >= 3
            }
            consumer.kill()
            #expect(consumer.wait().signaled)
            let keptPieces = try store.read { try $0.fetchValue("SELECT cursor_piece FROM _store_listeners WHERE name = 'killed'") }
            #expect(keptPieces.flatMap(Int64.fromDatabaseValue) ?? 0 >= 3)
            let resumed = try run("store-fixture", ["consume-pieces", path, "killed", "0"])
            #expect(resumed.status == 0 && resumed.stdout.hasSuffix("caught up\n"), "\(resumed.stderr)")
            // The resumed process starts with the piece after the last one acknowledged.
            let firstResumed = resumed.stdout.split(separator: "\n").first.map { $0.split(separator: " ") }
            #expect(firstResumed.flatMap { Int64($0[2]) } == keptPieces.flatMap(Int64.fromDatabaseValue))
            let counts = try store.read { try $0.fetchRows("SELECT count(*) AS total, count(DISTINCT id) AS keys FROM consumed_keys") }
            #expect(counts.first?["total"] == .integer(Int64(Self.rows)) && counts.first?["keys"] == .integer(Int64(Self.rows)))
        }
    }

    /// A writer killed (SIGKILL) at moments spread over its big transaction and its commit leaves either the
    /// whole commit or nothing: every commit row has its pieces, and listeners get nothing of a killed transaction.
    @Test(.tags(.processes)) func aWriterKilledDuringABigCommitLeavesNoPartialCommit() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("kill.sqlite").path
            let rows = 30_000
            let calibration = try run("store-fixture", ["big-write", path, "\(rows)", "\(32 * 1024)"])
            #expect(calibration.status == 0, "\(calibration.stderr)")
            let numbers = calibration.stdout.split(separator: "\n").map { $0.split(separator: " ") }
            let inserted = try #require(numbers.first { $0.first == "inserted" }.flatMap { Int($0[1]) })
            let committed = try #require(numbers.first { $0.first == "committed" }.flatMap { Int($0[2]) })
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            let recorder = EventRecorder()
            let token = store.listen("watcher") { recorder.record($0) }
            var killed = 0
            for cycle in 0...8 {
                // From just before the rows are in to just after the commit, in nine steps.
                let delay = inserted - 5 + (committed - inserted + 10) * cycle / 8
                let writer = try RunningProcess("store-fixture", ["big-write", path, "\(rows)", "\(32 * 1024)", "\(max(delay, 1))"])
                let result = writer.wait()
                if result.signaled { killed += 1 }
                try Self.expectConsistentLog(store)
            }
            #expect(killed > 0)
            let bigCommits = try store.read {
                try $0.fetchRows("SELECT seq, change_count FROM _store_commits WHERE origin = 'big-write' ORDER BY seq")
            }
            #expect(bigCommits.allSatisfy { $0["change_count"] == .integer(Int64(rows)) })
            #expect(try store.repository(NodeVO.self).count() == rows * bigCommits.count)
            // The listener saw exactly the commits that survived (the first one was before it), each whole.
            let survivors = bigCommits.dropFirst().compactMap { $0["seq"].flatMap(Int64.fromDatabaseValue) }
            try waitUntil("every surviving commit delivered") { Set(recorder.commits.filter(\.isLastPiece).map(\.sequence)) == Set(survivors) }
            for sequence in survivors {
                let pieces = recorder.commits.filter { $0.sequence == sequence }
                #expect(pieces.flatMap(\.changes).count == rows && pieces.map(\.piece.index) == Array(0..<pieces.count))
            }
            #expect(Set(recorder.commits.map(\.sequence)).isSubset(of: Set(survivors)))
            withExtendedLifetime(token) {}
        }
    }

    /// The capture spills sealed pieces to a file, and the commit writes them one at a time: a transaction of 10×
    /// the rows peaks within a few MiB of the smaller one (unbounded, 200,000 rows would hold ~22 MB of records,
    /// then a ~22 MB payload). Child processes, peak RSS (VmHWM) as each reports it. A memory check, not a timing;
    /// Benchmarks' big_transaction case measures 1M and 2M rows in release.
    @Test(.tags(.processes)) func peakMemoryOfABigTransactionDoesNotGrowWithItsRows() throws {
        try withTemporaryDirectory { directory in
            func peak(_ rows: Int) throws -> Int {
                let path = directory.appendingPathComponent("memory-\(rows).sqlite").path
                let result = try run("store-fixture", ["big-write", path, "\(rows)", "\(256 * 1024)"])
                #expect(result.status == 0, "\(result.stderr)")
                let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("peak-rss ") }
                return try #require(line.flatMap { Int($0.dropFirst("peak-rss ".count)) })
            }
            let small = try peak(20_000)
            let large = try peak(200_000)
            #expect(large - small < 12 * 1024, "peak RSS \(small) KiB at 20,000 rows, \(large) KiB at 200,000")
        }
    }

    /// A store whose log was written before pieces existed (migration 0006) is migrated to 0007 and still reads
    /// and delivers its old commits; a durable cursor set before the migration goes on.
    @Test func aLogWrittenBeforePiecesStillReadsAndDeliversAfterMigrating() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            try StoreMigrator.migrate(path: path, upTo: 6)
            do {
                var configuration = Self.configuration
                configuration.migrationPolicy = .none
                let old = try SQLiteStore(path: path, configuration: configuration)
                defer { old.close() }
                for index in 1...3 { try old.write { try Self.insertNodes(index, index, in: $0) } }
                // A transaction larger than a piece is one row here: the old layout has no pieces.
                try old.write { try Self.insertNodes(10, 2_009, in: $0) }
                try old.write {
                    try $0.execute("INSERT INTO _store_listeners (name, cursor_seq, updated_at) VALUES ('old', 1, '2026-01-01T00:00:00.000Z')")
                }
            }
            let store = try SQLiteStore(path: path, configuration: Self.configuration)
            defer { store.close() }
            #expect(try store.schemaVersion() == 7)
            let commits = try store.commits(after: 0)
            let nodeCommits = commits.filter { !$0.changes.isEmpty }
            #expect(nodeCommits.map { $0.changes.map(\.key) } == [Self.keys(1...1), Self.keys(2...2), Self.keys(3...3), Self.keys(10...2_009)])
            #expect(commits.allSatisfy { $0.piece == .whole })
            try Self.expectConsistentLog(store)

            let durable = Recorder<Commit>()
            let token = try store.listenDurably("old", filter: .table("nodes")) { event in
                if case .commit(let delivery) = event { durable.append(delivery.commit) }
            }
            try store.write { try Self.insertNodes(20_001, 20_000 + Self.rows, in: $0) }
            try waitUntil("the old commits, then the new one") { durable.all.last?.isLastPiece == true && durable.all.last?.piece.count ?? 1 > 1 }
            // The migration's own schema-change commit goes to every listener; the rest are the rows.
            let received = durable.all.filter { !$0.schemaChanged }
            let keys = received.map { $0.changes.map(\.key) }
            #expect(Array(keys.prefix(3)) == [Self.keys(2...2), Self.keys(3...3), Self.keys(10...2_009)])
            Self.expectWhole(Array(received.dropFirst(3)), sequence: try store.lastSequence(), keys: Self.keys(20_001...(20_000 + Self.rows)))
            token.cancel()
        }
    }
}
