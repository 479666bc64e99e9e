import Foundation
import StoreTestSupport
import TestScheduling
import Testing

@testable import ObservableStore

/// A writer process killed with SIGKILL at random moments, many times, reopened after each kill.
/// Cycles: 50 by default, a quarter of that with `synchronous=FULL` and for power loss (power loss with NORMAL goes on
/// until it lost a commit, at most 100); `STORE_CRASH_CYCLES` sets more
/// (CI runs 200).
@Suite(.serialized, .timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct CrashTests {
    struct Acknowledged: Hashable {
        var sequence: Int64
        var tag: String
        var rows: Int
    }

    static var cycles: Int { ProcessInfo.processInfo.environment["STORE_CRASH_CYCLES"].flatMap(Int.init) ?? 50 }

    @Test func killedWritersLoseNothingAcknowledgedAndLeaveNothingPartial() throws {
        try crashCycles(Self.cycles, full: false)
    }

    @Test func killedWritersWithSynchronousFull() throws {
        try crashCycles(max(Self.cycles / 4, 1), full: true)
    }

    /// Power loss (the PowerLossVFS shim drops every write not synced when the process dies; `-shm` is deleted
    /// before reopening): with `synchronous=FULL`, nothing acknowledged may be lost.
    @Test func powerLossWithSynchronousFullLosesNothingAcknowledged() throws {
        try crashCycles(max(Self.cycles / 4, 1), full: true, powerLoss: true)
    }

    /// With `synchronous=NORMAL`, SQLite's documented trade-off: the last acknowledged commits may be lost, but
    /// only as a suffix (what survives is a prefix of the history), and nothing is partial or corrupt.
    @Test func powerLossWithSynchronousNormalLosesOnlyTheLatestCommits() throws {
        try crashCycles(max(Self.cycles / 4, 1), full: false, powerLoss: true)
    }

    private func crashCycles(_ cycles: Int, full: Bool, powerLoss: Bool = false) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("crash.sqlite").path
            try SQLiteStore(path: path).close()  // created and migrated once, before the first kill
            var acknowledgedCount = 0
            var lostCount = 0
            var rowsBefore: Int64 = 0  // this cycle's rows come after this rowid
            var generator = SystemRandomNumberGenerator()
            // Power loss with NORMAL must lose something for the test to mean anything, but a cycle's kill may come
            // before the writer's unsynced commits (a loaded machine starts the writer late): go on past `cycles`
            // until one loss is seen, at most 100 cycles in all.
            let mustSeeALoss = powerLoss && !full
            var cycle = 0
            while cycle < cycles || (mustSeeALoss && lostCount == 0 && cycle < max(cycles, 100)) {
                defer { cycle += 1 }
                let writer = try RunningProcess(
                    "store-fixture", ["crash-writer", path] + (full ? ["full"] : []) + (powerLoss ? ["power-loss"] : []))
                usleep(UInt32.random(in: 20_000...90_000, using: &generator))  // a random moment to kill at, orders nothing
                writer.kill()
                let result = writer.wait()
                // Shared memory does not survive a power cut; SQLite rebuilds it from the WAL.
                if powerLoss { try? FileManager.default.removeItem(atPath: path + "-shm") }
                var acknowledged: [Acknowledged] = []
                for line in result.stdout.split(separator: "\n") {
                    let parts = line.split(separator: " ")
                    // A line cut by the kill is not an acknowledgement.
                    guard parts.count == 4, parts[0] == "ack", let sequence = Int64(parts[1]), let rows = Int(parts[3]) else { continue }
                    acknowledged.append(Acknowledged(sequence: sequence, tag: String(parts[2]), rows: rows))
                }
                acknowledgedCount += acknowledged.count
                lostCount += try verify(
                    path, acknowledged: acknowledged, cycle: cycle, oldestRowID: rowsBefore, durable: full || !powerLoss)
                rowsBefore = try SQLiteStore(path: path).read { try $0.fetchValue("SELECT coalesce(max(rowid), 0) FROM nodes") }
                    .flatMap(Int64.fromDatabaseValue) ?? 0
            }
            #expect(acknowledgedCount > cycles, "the writer should commit several times per cycle")
            print(
                "crash harness: \(cycle) \(powerLoss ? "power-loss" : "SIGKILL") cycles, \(acknowledgedCount) acknowledged "
                    + "commits verified, \(lostCount) lost (allowed only for power loss with NORMAL), "
                    + "synchronous=\(full ? "FULL" : "NORMAL")")
            if powerLoss && !full {
                // If the shim dropped nothing, it did not model power loss at all.
                #expect(lostCount > 0, "NORMAL never lost an unsynced commit: the power-loss shim is not in effect")
                // Checkpoints sync the WAL: some commits must survive, or the prefix check checked nothing.
                #expect(lostCount < acknowledgedCount, "no acknowledged commit survived any power cut")
            }
        }
    }

    /// After a crash: integrity, no partial transaction, a gap-free change log that matches the data (checked
    /// in SQL, so each cycle stays cheap), and this cycle's acknowledged commits: all present when `durable`,
    /// else a prefix of them. Returns how many acknowledged commits were lost.
    private func verify(_ path: String, acknowledged: [Acknowledged], cycle: Int, oldestRowID: Int64, durable: Bool) throws -> Int {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        return try store.read { tx -> Int in
            let integrity = try tx.fetchValue("PRAGMA integrity_check").flatMap(String.fromDatabaseValue) ?? "?"
            #expect(integrity == "ok", "cycle \(cycle): integrity_check: \(integrity)")
            let log = try #require(try tx.fetchRows("SELECT count(*) AS n, min(seq) AS first, max(seq) AS last, total(change_count) AS changes FROM _store_commits").first)
            let commits = log.value("n", as: Int64.self) ?? 0
            if commits > 0 {
                #expect(log.value("first", as: Int64.self) == 1 && log.value("last", as: Int64.self) == commits, "cycle \(cycle): the log has gaps")
            }
            let tagged = "substr(name, 1, instr(name, '/') - 1)"
            let partial = try tx.fetchValue(
                "SELECT count(*) FROM (SELECT \(tagged) AS tag, count(*) AS n, max(x) AS rows FROM nodes GROUP BY tag HAVING n != rows)")
            #expect(partial == .integer(0), "cycle \(cycle): partial transactions")
            #expect(try tx.fetchValue("SELECT count(DISTINCT \(tagged)) FROM nodes") == .integer(commits), "cycle \(cycle): one commit record per transaction")
            #expect(try tx.fetchValue("SELECT count(*) FROM nodes").flatMap(Double.fromDatabaseValue) == log.value("changes", as: Double.self))
            guard !acknowledged.isEmpty else { return 0 }
            let tags = Set(acknowledged.map(\.tag))
            var found: [String: Int] = [:]
            for row in try tx.fetchRows("SELECT \(tagged) AS tag, count(*) AS n FROM nodes WHERE rowid > ? GROUP BY tag", [oldestRowID]) {
                if let tag = row.value("tag", as: String.self), tags.contains(tag) { found[tag] = row.value("n", as: Int.self) }
            }
            let present = acknowledged.map { found[$0.tag] == $0.rows && $0.sequence <= commits }
            if durable {
                for (ack, isPresent) in zip(acknowledged, present) where !isPresent {
                    Issue.record("cycle \(cycle): acknowledged commit \(ack.sequence) (\(ack.tag)) is missing")
                }
            } else if let firstLost = present.firstIndex(of: false), present[firstLost...].contains(true) {
                Issue.record("cycle \(cycle): a commit acknowledged after a lost one survived: the history has a hole")
            }
            return present.filter { !$0 }.count
        }
    }
}
