#if PostgreSQL
import Foundation
import ObservableStoreCore
import StorePostgres
import StoreTestSupport
import TestScheduling
import Testing

/// Durable listeners across processes, with `kill -9`: `store-fixture pg-consume` consumers record each commit in
/// table `consumed` and acknowledge it in the same write, `store-fixture pg-write` writes. A second consumer of the
/// same name stands by while the first lives and takes over when it is killed; nothing is lost and no effect is
/// repeated, also when the kill lands inside the handler's write.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes), .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerDurableKillTests {
    @Test func aStandbyProcessTakesOverFromAKilledConsumerWithNoLossAndNoRepeat() throws {
        try withConsumers { server, directory in
            let first = try Consumer(server, directory, "a", ["100"])
            defer { first.end() }
            try waitUntil("the first consumer to hold the name") { holds(server, "mailer") }
            let standby = try Consumer(server, directory, "b", [])
            defer { standby.end() }
            try waitUntil("the standby to listen") { standby.lines.contains("listening") }
            let writer = try RunningProcess("store-fixture", ["pg-write", server.url.text, "60", "50"])
            defer { if writer.isRunning { writer.kill() } }
            try waitUntil("8 acknowledgements by the first consumer") { first.sequences("acked").count >= 8 }
            #expect(standby.sequences("deliver").isEmpty, "the standby delivers nothing while the first consumer lives")
            #expect(writer.isRunning, "the kill lands while writes go on")
            first.process.kill()
            _ = first.process.wait()
            let written = writer.wait()
            #expect(written.status == 0, "\(written.stderr)")
            try waitForConsumed(server, 60)
            try expectEachCommitConsumedOnce(server, count: 60)
            try expectTakeover(server, from: first, to: standby)
        }
    }

    @Test func aKillInsideTheHandlersWriteLeavesNoEffectAndTheStandbyRedoesItOnce() throws {
        try withConsumers { server, directory in
            let first = try Consumer(server, directory, "a", ["800", "in-write"])
            defer { first.end() }
            try waitUntil("the first consumer to hold the name") { holds(server, "mailer") }
            let standby = try Consumer(server, directory, "b", [])
            defer { standby.end() }
            try waitUntil("the standby to listen") { standby.lines.contains("listening") }
            let written = try run("store-fixture", ["pg-write", server.url.text, "10"])
            #expect(written.status == 0, "\(written.stderr)")
            // The third delivery's row is inserted and its acknowledgement made; the write sleeps 800 ms before COMMIT.
            try waitUntil("the third delivery inside its write") { first.sequences("inserted").count >= 3 }
            first.process.kill()
            _ = first.process.wait()
            let inFlight = try #require(first.sequences("inserted").last)
            try waitForConsumed(server, 10)
            try expectEachCommitConsumedOnce(server, count: 10)
            let killedWrite = "SELECT count(*) FROM consumed WHERE seq = \(inFlight) AND pid = \(first.pid)"
            #expect(try count(server, killedWrite) == 0, "the killed write left nothing")
            #expect(standby.sequences("deliver").first == inFlight, "the standby redelivers the killed write's commit")
            try expectTakeover(server, from: first, to: standby)
        }
    }

    @Test func aConsumerRestartedAfterAKillResumesFromTheCursor() throws {
        try withConsumers { server, directory in
            let first = try Consumer(server, directory, "a", ["50"])
            defer { first.end() }
            let written = try run("store-fixture", ["pg-write", server.url.text, "30"])
            #expect(written.status == 0, "\(written.stderr)")
            try waitUntil("10 acknowledgements") { first.sequences("acked").count >= 10 }
            first.process.kill()
            _ = first.process.wait()
            let restarted = try Consumer(server, directory, "a2", [])
            defer { restarted.end() }
            try waitForConsumed(server, 30)
            try expectEachCommitConsumedOnce(server, count: 30)
            try expectTakeover(server, from: first, to: restarted)
        }
    }

    // MARK: - Helpers

    /// Runs `body` with a fresh database holding table `consumed`, and a temporary directory for the consumers' logs.
    private func withConsumers(_ body: (ObservedServer, URL) throws -> Void) throws {
        try ObservedServer.with { server in
            try server.psql.execute("CREATE TABLE consumed (seq bigint NOT NULL, pid integer NOT NULL)")
            try withTemporaryDirectory { directory in try body(server, directory) }
        }
    }

    /// Waits (60 s at most) until `count` different commits are in `consumed`.
    private func waitForConsumed(_ server: ObservedServer, _ count: Int64) throws {
        try waitUntil(timeout: 60, "\(count) commits consumed") {
            usleep(20_000)
            return try self.count(server, "SELECT count(DISTINCT seq) FROM consumed") >= count
        }
    }

    /// Each of the `count` commits written consumed exactly once (no loss, no repeated effect), and the cursor at
    /// the last of them.
    private func expectEachCommitConsumedOnce(_ server: ObservedServer, count expected: Int64) throws {
        Thread.sleep(forTimeInterval: 0.5)  // a repeat would come now
        #expect(try count(server, "SELECT count(*) FROM consumed") == expected, "no effect twice")
        #expect(try count(server, "SELECT count(DISTINCT seq) FROM consumed") == expected, "no commit lost")
        #expect(try count(server, "SELECT count(*) FROM nodes") == expected)
        try waitUntil("the cursor at the last commit") {
            try count(server, "SELECT cursor_seq FROM _store_listeners WHERE name = 'mailer'")
                == count(server, "SELECT max(seq) FROM consumed")
        }
    }

    /// `next` took over right after the last commit `killed` acknowledged (its own effects, as committed): a commit
    /// `killed` received but did not commit is redelivered, not lost.
    private func expectTakeover(_ server: ObservedServer, from killed: Consumer, to next: Consumer) throws {
        let lastByKilled = try count(server, "SELECT max(seq) FROM consumed WHERE pid = \(killed.pid)")
        #expect(lastByKilled > 0, "the killed consumer committed some effects")
        let following = try count(server, "SELECT min(seq) FROM consumed WHERE seq > \(lastByKilled)")
        #expect(next.sequences("deliver").first == following, "the next consumer starts right after \(lastByKilled)")
        #expect(try count(server, "SELECT count(*) FROM consumed WHERE pid = \(killed.pid) AND seq > \(lastByKilled)")
            == 0)
        #expect(try count(server, "SELECT count(*) FROM consumed WHERE pid = \(next.pid) AND seq <= \(lastByKilled)")
            == 0)
        // What the killed one delivered past its last commit, at most the one in flight, comes again.
        let unfinished = killed.sequences("deliver").filter { $0 > lastByKilled }
        #expect(unfinished.count <= 1)
        if let inFlight = unfinished.first { #expect(inFlight == following) }
    }

    /// The first column of the first row of `sql` on the test's connection (0 when NULL).
    private func count(_ server: ObservedServer, _ sql: String) throws -> Int64 {
        try integer(server.psql, sql)
    }

    /// Whether some session holds durable listener `name`'s advisory lock.
    private func holds(_ server: ObservedServer, _ name: String) -> Bool {
        usleep(20_000)
        return (try? count(
            server,
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = "
                + "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                + "AND objid::bigint = (hashtext('store.listener:\(name)')::bigint & 4294967295)")) == 1
    }
}

/// A `store-fixture pg-consume` process of durable listener "mailer", and its progress lines.
private final class Consumer: Sendable {
    let process: RunningProcess
    let log: String

    /// Starts a consumer logging to `<directory>/<label>.log`, with `options` (`DELAY_MS [in-write]`).
    init(_ server: ObservedServer, _ directory: URL, _ label: String, _ options: [String]) throws {
        log = directory.appendingPathComponent("\(label).log").path
        process = try RunningProcess("store-fixture", ["pg-consume", server.url.text, "mailer", log] + options)
    }

    /// Its process id, as it records it in `consumed`.
    var pid: Int32 { process.processIdentifier }

    /// The lines it logged so far (a line cut by a kill is dropped).
    var lines: [String] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        return lines.dropLast(text.hasSuffix("\n") ? 0 : 1).map(String.init)
    }

    /// The sequences of its lines `<word> SEQ`, in order.
    func sequences(_ word: String) -> [Int64] {
        lines.compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 && parts[0] == word ? Int64(parts[1]) : nil
        }
    }

    /// Kills it if it still runs (the tests' consumers never exit by themselves) and reaps it.
    func end() {
        if process.isRunning { process.kill() }
        let result = process.wait(timeout: 10)
        if !result.signaled, result.status != 0 { Issue.record("consumer \(log) failed: \(result.stderr)") }
    }
}
#endif
