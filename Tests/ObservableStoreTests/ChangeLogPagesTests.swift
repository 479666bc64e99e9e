import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Reading the change log a page at a time: a page ends at its row limit or once its payloads reach
/// `ChangeLog.pageByteBudget` (4 MiB), so that a reader never holds many large commits at once; only an empty
/// page is the end. And stores kept below migration 0007 (no pieces yet) still prune, and refuse durable
/// listeners with one clear error.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ChangeLogPagesTests {
    /// Rows per commit: about 3 MB of changes, one piece, so that two commits fill a page's byte budget.
    static let rowsPerCommit = 28_000

    /// Nodes 1…3 × ``rowsPerCommit``, in three commits (synchronous: the async tests' closures would pick `write`'s
    /// async overload).
    static func commitThreeLargeCommits(to store: SQLiteStore) throws {
        for index in 0..<3 {
            let first = index * rowsPerCommit + 1
            try store.write { try ChangeLogPiecesTests.insertNodes(first, first + rowsPerCommit - 1, in: $0) }
        }
    }

    /// Three commits of about 3 MB: `commits(after:)` returns them over two pages (the budget ends the first
    /// after two), `commits(following:)` continues, and every change comes once, in order.
    @Test func pagesEndAtTheByteBudgetAndContinue() throws {
        try withTemporaryStore { store, _ in
            try Self.commitThreeLargeCommits(to: store)
            let first = try store.commits(after: 0)
            #expect(first.count == 2, "the byte budget ends the page after two commits: \(first.map(\.sequence))")
            var all = first
            var page = first
            while let last = page.last {
                page = try store.commits(following: last)
                all += page
            }
            #expect(all.map(\.sequence) == [1, 2, 3])
            #expect(all.flatMap(\.changes).map(\.key) == ChangeLogPiecesTests.keys(1...(3 * Self.rowsPerCommit)))
        }
    }

    /// Another store on the same file commits three large commits; this store's feed catches up through pages
    /// cut by the byte budget, and its listener and a durable listener starting at the beginning get every
    /// commit, in order, each once.
    @Test func listenersCatchUpThroughPagesCutByTheByteBudget() async throws {
        try await withTemporaryStore { store, path in
            let queued = EventRecorder()
            let token = store.listen("queued", filter: .table("nodes")) { queued.record($0) }
            let durable = Recorder<Commit>()
            let durableToken = try store.listenDurably("durable", filter: .table("nodes"), startingAt: .beginning) { event in
                if case .commit(let delivery) = event { durable.append(delivery.commit) }
            }
            let other = try SQLiteStore(path: path)
            try Self.commitThreeLargeCommits(to: other)
            other.close()
            let keys = ChangeLogPiecesTests.keys(1...(3 * Self.rowsPerCommit))
            try await waitUntil("three commits to the listener") { queued.commits.flatMap(\.changes).count >= keys.count }
            try await waitUntil("three commits to the durable listener") { durable.all.flatMap(\.changes).count >= keys.count }
            #expect(queued.commits.map(\.sequence) == [1, 2, 3])
            #expect(queued.commits.flatMap(\.changes).map(\.key) == keys)
            #expect(durable.all.map(\.sequence) == [1, 2, 3])
            #expect(durable.all.flatMap(\.changes).map(\.key) == keys)
            withExtendedLifetime((token, durableToken)) {}
        }
    }

    /// A store kept at migration 0006 (`migrationPolicy: .none`): pruning works, and a durable listener is
    /// refused with `.migrationNeeded` naming the migration, leaving no cursor row.
    @Test func aStoreBelowMigration7PrunesAndRefusesDurableListeners() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            try StoreMigrator.migrate(path: path, upTo: 6)
            var configuration = SQLiteStoreConfiguration()
            configuration.migrationPolicy = .none
            let store = try SQLiteStore(path: path, configuration: configuration)
            defer { store.close() }
            for index in 1...5 { try store.write { try ChangeLogPiecesTests.insertNodes(index, index, in: $0) } }
            _ = try store.pruneChangeLog()
            let error = #expect(throws: StoreError.self) { try store.listenDurably("mailer") { _ in } }
            #expect(error?.code == .migrationNeeded)
            #expect(error?.message.contains("0007") == true, "\(String(describing: error))")
            let cursors = try store.read { try $0.fetchValue("SELECT count(*) FROM _store_listeners") }
            #expect(cursors == .integer(0))
        }
    }
}
