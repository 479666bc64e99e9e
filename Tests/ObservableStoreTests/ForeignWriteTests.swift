import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// Writes by programs that do not log their changes (the `sqlite3` shell) reach every listener once, in
/// their place in the sequence order, whatever else is writing; so do migrations made by another process.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct ForeignWriteTests {
    /// Inserts a node every `interval` on its own thread until stopped; counts the writes that returned.
    private final class SteadyWriter: @unchecked Sendable {
        // @unchecked: `stopped` and `failure` are guarded by `lock`; `written` is a Locked.
        private let lock = NSLock()
        private var stopped = false
        private var failure: (any Error)?
        private let done = DispatchSemaphore(value: 0)
        let written = Locked(0)

        init(store: SQLiteStore, every interval: Duration) {
            let microseconds = UInt32(interval.components.attoseconds / 1_000_000_000_000)
            Thread.detachNewThread { [self] in
                defer { done.signal() }
                var index = 0
                while !lock.withLock({ stopped }) {
                    do {
                        try store.repository(NodeVO.self, origin: "steady").insert(NodeVO(name: "steady-\(index)", x: 0, y: 0))
                    } catch {
                        lock.withLock { failure = error }
                        return
                    }
                    index += 1
                    written.value = index
                    usleep(microseconds)  // the writer's pace, not an ordering
                }
            }
        }

        /// Waits (at most 20 s) until at least `count` writes returned.
        func waitForWrites(_ count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while written.value < count {
                if Date() > deadline || lock.withLock({ failure != nil }) { return false }
                usleep(500)
            }
            return true
        }

        /// Stops the thread and waits for it (at most 20 s); returns the number of writes and the error, if any.
        func stop() -> (writes: Int, error: (any Error)?) {
            lock.withLock { stopped = true }
            let finished = done.wait(timeout: .now() + 20) == .success
            return (written.value, lock.withLock { finished ? failure : StoreError(.busy, "the writer did not stop") })
        }
    }

    /// The sequences of `events` in order, the external change taking the sequence of the log's marker.
    private func order(of events: [StoreEvent], externalAt marker: Int64) -> [Int64] {
        events.map { $0.sequence ?? marker }
    }

    /// The one external-change marker in the log (recording an issue when there is not exactly one).
    private func onlyMarker(in store: SQLiteStore, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        let markers = try store.commits(after: 0, limit: 100_000).filter(\.isExternalChange)
        #expect(markers.count == 1, "markers: \(markers.map(\.sequence))", sourceLocation: sourceLocation)
        return markers.first?.sequence ?? -1
    }

    @Test(arguments: [1, 5, 50])
    func aShellWriteDuringSteadyOwnWritesReachesAListenerOnceInItsPlace(intervalMilliseconds: Int) throws {
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("view") { recorder.record($0) }
            let steady = SteadyWriter(store: store, every: .milliseconds(intervalMilliseconds))
            #expect(steady.waitForWrites(5))
            let shell = try runSQLiteShell(path, "INSERT INTO user_info (id, name) VALUES ('shell', 'from the shell');")
            #expect(shell.status == 0, "\(shell.stdout)")
            // Keep writing for a while after the foreign write (at least 10 writes and 300 ms).
            let after = steady.written.value + max(10, 300 / intervalMilliseconds)
            #expect(steady.waitForWrites(after))
            let (writes, error) = steady.stop()
            #expect(error == nil, "\(String(describing: error))")
            #expect(recorder.wait(for: writes + 1))
            usleep(300_000)  // lets time pass (longer than the feed's confirmation window): nothing more may come
            let events = recorder.all
            #expect(events.filter { $0 == .resync(.externalChange) }.count == 1)
            let marker = try onlyMarker(in: store)
            #expect(order(of: events, externalAt: marker) == Array(1...Int64(writes + 1)))
            #expect(try store.read { try $0.fetchValue("SELECT name FROM user_info WHERE id = 'shell'") } == .text("from the shell"))
            withExtendedLifetime(token) {}
        }
    }

    @Test func aShellWriteDuringAnotherProcesssSteadyWritesReachesAListenerOnceInItsPlace() throws {
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("view") { recorder.record($0) }
            let child = try RunningProcess("store-fixture", ["write", path, "200", "5"])
            #expect(recorder.wait(for: 10))
            let shell = try runSQLiteShell(path, "INSERT INTO user_info (id, name) VALUES ('shell', 'from the shell');")
            #expect(shell.status == 0, "\(shell.stdout)")
            let result = child.wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(recorder.wait(for: 201))
            usleep(300_000)  // lets time pass (longer than the feed's confirmation window): nothing more may come
            let events = recorder.all
            #expect(events.filter { $0 == .resync(.externalChange) }.count == 1)
            let marker = try onlyMarker(in: store)
            #expect(order(of: events, externalAt: marker) == Array(1...201))
            withExtendedLifetime(token) {}
        }
    }

    @Test func aShellWriteWhileTheStoreIsIdleIsLoggedOnce() throws {
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("view", filter: .table("nodes")) { recorder.record($0) }
            let shell = try runSQLiteShell(path, "INSERT INTO user_info (id, name) VALUES ('shell', 'from the shell');")
            #expect(shell.status == 0, "\(shell.stdout)")
            #expect(recorder.wait(for: 1))
            // Any filter gets it: which tables changed is unknown.
            #expect(recorder.all == [.resync(.externalChange)])
            #expect(try onlyMarker(in: store) == 1)
            // Library writes afterwards are commits again, after the marker.
            let written = try store.writeReturningCommit { try $0.insert(NodeVO(name: "library", x: 0, y: 0)) }
            #expect(written.sequence == 2)
            #expect(recorder.wait(for: 2))
            usleep(300_000)  // lets time pass: nothing more may come
            #expect(recorder.all.map(\.sequence) == [nil, 2])
            withExtendedLifetime(token) {}
        }
    }

    @Test func aDurableListenerGetsAShellWriteOnceInItsPlaceAndNotAgainAfterARestart() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            let received = Recorder<DurableEvent>()
            var writes = 0
            do {
                let store = try SQLiteStore(path: path)
                defer { store.close() }
                let token = try store.listenDurably("mailer") { event in received.append(event) }
                let steady = SteadyWriter(store: store, every: .milliseconds(5))
                #expect(steady.waitForWrites(5))
                let shell = try runSQLiteShell(path, "INSERT INTO user_info (id, name) VALUES ('shell', 'from the shell');")
                #expect(shell.status == 0, "\(shell.stdout)")
                #expect(steady.waitForWrites(steady.written.value + 40))
                let stopped = steady.stop()
                #expect(stopped.error == nil)
                writes = stopped.writes
                try waitUntil { received.count >= writes + 1 }
                usleep(300_000)  // lets time pass (longer than the feed's confirmation window): nothing more may come
                let marker = try onlyMarker(in: store)
                #expect(Self.sequences(received.all, externalAt: marker) == Array(1...Int64(writes + 1)))
                withExtendedLifetime(token) {}
            }
            // After a restart the cursor stands past everything: nothing is delivered again.
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            let again = Recorder<DurableEvent>()
            let token = try store.listenDurably("mailer") { event in again.append(event) }
            usleep(300_000)  // lets time pass: nothing may come
            #expect(again.all.isEmpty)
            // Replayed from the start, the external change comes once, in its place.
            token.cancel()
            try store.resetDurableListener("mailer", to: 0)
            let replay = try store.listenDurably("mailer") { event in again.append(event) }
            try waitUntil { again.count >= writes + 1 }
            usleep(200_000)  // lets time pass: nothing more may come
            let marker = try onlyMarker(in: store)
            #expect(Self.sequences(again.all, externalAt: marker) == Array(1...Int64(writes + 1)))
            withExtendedLifetime(replay) {}
        }
    }

    private static func sequences(_ events: [DurableEvent], externalAt marker: Int64) -> [Int64] {
        events.map { event in
            switch event {
            case .commit(let delivery): delivery.commit.sequence
            case .resync(.externalChange): marker
            case .resync(let reason): -(reason.missed?.upperBound ?? 0)
            }
        }
    }

    @Test func anotherProcesssMigrationIsASchemaChangeInOrderAndBoundValuesReadAgain() throws {
        try withTemporaryStore { store, path in
            try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))
            let names = Recorder<String?>()
            let bound = try store.bindAndFire("header.name", UserInfo.self, key: "me", \.name) { names.append($0) }
            let recorder = EventRecorder()
            let token = store.listen("all") { recorder.record($0) }
            #expect(names.all == ["Ada"])
            try withTemporaryDirectory { directory in
                let folder = try writeMigrationFolder(
                    [
                        "0001_nicknames.sql":
                            "ALTER TABLE user_info ADD COLUMN nickname TEXT;\nUPDATE user_info SET name = name || ' (migrated)';\n"
                    ], named: "extra", in: directory)
                // The child migrates, then commits at once: the migration must not hide behind that commit.
                let result = try run("store-fixture", ["migrate", path, "extra", folder.path, "write"])
                #expect(result.status == 0, "\(result.stderr)")
            }
            #expect(recorder.wait(for: 2))
            try waitUntil { names.all.last == "Ada (migrated)" }
            let commits = recorder.commits
            #expect(commits.map(\.sequence) == [2, 3])
            #expect(commits.first?.schemaChanged == true)
            #expect(commits.first?.origin == "migration:extra/0001_nicknames")
            #expect(commits.first?.changes.isEmpty == true)
            #expect(commits.last?.changes.map(\.table) == ["nodes"])
            #expect(!recorder.all.contains(.resync(.externalChange)))
            withExtendedLifetime((bound, token)) {}
        }
    }

    /// A store with a recording listener, and a second store on the same file, as another process's writer.
    private func withSecondWriter(_ body: (_ store: SQLiteStore, _ other: SQLiteStore, _ recorder: EventRecorder, _ path: String) throws -> Void) throws {
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("view") { recorder.record($0) }
            let other = try SQLiteStore(path: path)
            defer { other.close() }
            try body(store, other, recorder, path)
            withExtendedLifetime(token) {}
        }
    }

    @Test func aShellWriteBeforeARolledBackWriteIsLoggedOnceByTheNextCommit() throws {
        try withTemporaryStore { store, path in
            let recorder = EventRecorder()
            let token = store.listen("view") { recorder.record($0) }
            try store.repository(NodeVO.self).insert(NodeVO(name: "first", x: 0, y: 0))
            #expect(recorder.wait(for: 1))
            let shell = try runSQLiteShell(path, "INSERT INTO user_info (id, name) VALUES ('shell', 'from the shell');")
            #expect(shell.status == 0, "\(shell.stdout)")
            // This write may log the shell's write as a marker; rolling back takes the marker with it.
            #expect(throws: StoreError.self) {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "rolled back", x: 0, y: 0))
                    throw StoreError(.invalidInput, "no")
                }
            }
            try store.repository(NodeVO.self).insert(NodeVO(name: "last", x: 0, y: 0))
            #expect(recorder.wait(for: 3))
            usleep(300_000)  // longer than the feed's confirmation window: nothing more may come
            let events = recorder.all
            #expect(events.filter { $0 == .resync(.externalChange) }.count == 1)
            let marker = try onlyMarker(in: store)
            #expect(order(of: events, externalAt: marker) == [1, 2, 3])
            #expect(try store.repository(NodeVO.self).fetchAll().map(\.name) == ["first", "last"])
            withExtendedLifetime(token) {}
        }
    }

    @Test func aWALStartedOverByATruncatingCheckpointIsNotAForeignWrite() throws {
        try withSecondWriter { store, other, recorder, path in
            for index in 0..<20 { try other.repository(NodeVO.self).insert(NodeVO(name: "other-\(index)", x: 0, y: 0)) }
            #expect(recorder.wait(for: 20))
            // Another process truncates the WAL; then this one, and the other store, write again.
            let checkpoint = try run("storectl", ["--db", path, "checkpoint", "--mode", "truncate"])
            #expect(checkpoint.status == 0, "\(checkpoint.stderr)")
            // Lets the feed look at the truncated WAL before this process writes again (orders nothing the
            // assertions need: looking later would make the test weaker, not fail it).
            usleep(300_000)
            _ = try store.checkpoint(.truncate)
            try store.repository(NodeVO.self).insert(NodeVO(name: "mine", x: 0, y: 0))
            _ = try other.checkpoint(.truncate)
            try other.repository(NodeVO.self).insert(NodeVO(name: "other-last", x: 0, y: 0))
            #expect(recorder.wait(for: 22))
            usleep(300_000)  // lets time pass: nothing more may come
            #expect(!recorder.all.contains(.resync(.externalChange)))
            #expect(recorder.all.map(\.sequence) == (1...22).map { Optional($0) })
            #expect(try store.commits(after: 0, limit: 100).filter(\.isExternalChange).isEmpty)
        }
    }

    @Test func aLibraryWriteThatChangesOnlyTheHeaderIsNotAForeignWrite() throws {
        try withSecondWriter { store, other, recorder, _ in
            try other.write { try $0.execute("PRAGMA user_version = 77") }  // no row, no log entry
            usleep(300_000)  // longer than the feed's confirmation window: nothing may come
            try store.repository(NodeVO.self).insert(NodeVO(name: "mine", x: 0, y: 0))
            #expect(recorder.wait(for: 1))
            usleep(300_000)
            #expect(recorder.all.map(\.sequence) == [1])
        }
    }

    @Test func theCheckAfterOwnWritesRunsOnceAndDoesNotWakeItself() throws {
        try withTemporaryStore { store, _ in
            try store.repository(NodeVO.self).insert(NodeVO(name: "one", x: 0, y: 0))
            let checks = { (try? store.writer.sync(countsAsWrite: false) { $0.foreignWrites.checks }) ?? -1 }
            // The write checked once; once the feed saw this process stop writing, the writer checks once more.
            try waitUntil { checks() >= 2 }
            usleep(1_200_000)  // several feed polls (250 ms): time for a check that woke itself to run again
            #expect(checks() == 2)
        }
    }

    @Test func aNewStoresMigrationsAreNotLogged() throws {
        try withTemporaryStore { (store: SQLiteStore, _: String) throws in
            #expect(try store.lastSequence() == 0)
            #expect(try store.commits(after: 0).isEmpty)
        }
    }

    @Test func writeReturningCommitGivesTheSequenceListenersSee() throws {
        try withTemporaryStore { store, _ in
            let (recorder, token) = store.record()
            let first = try store.writeReturningCommit(origin: "me") { tx in try tx.insert(NodeVO(name: "a", x: 0, y: 0)).id }
            #expect(first.sequence == 1)
            #expect(first.value == 1)
            #expect(recorder.commits.map(\.sequence) == [1])
            // Nothing changed: no commit, no sequence, no event.
            let nothing = try store.writeReturningCommit { tx in try tx.count(RecordQuery<NodeVO>()) }
            #expect(nothing == CommittedWrite(value: 1, sequence: nil))
            // A write that throws rolls back and returns nothing; the next commit takes the next sequence.
            #expect(throws: StoreError.self) {
                try store.writeReturningCommit { tx in
                    try tx.insert(NodeVO(name: "c", x: 0, y: 0))
                    throw StoreError(.invalidInput, "no")
                }
            }
            #expect(try store.writeReturningCommit { try $0.insert(NodeVO(name: "d", x: 0, y: 0)) }.sequence == 2)
            #expect(recorder.commits.map(\.sequence) == [1, 2])
            withExtendedLifetime(token) {}
        }
    }

    @Test func writeReturningCommitAsynchronouslyGivesTheSequenceToo() async throws {
        try await withTemporaryStore { store, _ in
            let written = try await store.writeReturningCommit { tx in try tx.insert(NodeVO(name: "b", x: 0, y: 0)).id }
            #expect(written.sequence == 1)
            let nothing = try await store.writeReturningCommit { tx in try tx.count(RecordQuery<NodeVO>()) }
            #expect(nothing.sequence == nil)
        }
    }
}
