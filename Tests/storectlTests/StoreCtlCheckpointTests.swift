import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// `storectl checkpoint` and the WAL lines of `storectl info`, against a store this test holds open (so
/// that storectl's connection is never the last one, whose close would checkpoint on its own).
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlCheckpointTests {
    /// Opens the store at `path`, commits `writes` one-row writes, and runs `body` with it open.
    private func withWrittenStore(_ path: String, writes: Int = 3, _ body: (SQLiteStore) throws -> Void) throws {
        let store = try SQLiteStore(path: path, configuration: inspectionConfiguration)
        defer { store.close() }
        for index in 0..<writes { try store.repository(NodeVO.self).insert(NodeVO(name: "n\(index)", x: 0, y: 0)) }
        try body(store)
    }

    private func info(_ path: String) throws -> JSONObject {
        let result = try cli(["--db", path, "--format", "json", "info"])
        expectSuccess(result)
        return try jsonObject(result.stdout)
    }

    private func walSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int
    }

    @Test func infoShowsTheWALWithoutCheckpointing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withWrittenStore(path) { _ in
                let first = try info(path)
                let frames = try #require(first["wal_frames"] as? Int, "\(first)")
                #expect(frames > 0, "\(first)")
                #expect(first["wal_checkpointed_frames"] as? Int == 0, "\(first)")
                #expect(first["wal_bytes"] as? Int == walSize(path), "\(first)")
                // Read-only: a second look finds the same WAL, still not copied into the file.
                let second = try info(path)
                #expect(second["wal_frames"] as? Int == frames && second["wal_checkpointed_frames"] as? Int == 0, "\(second)")
                let table = try cli(["--db", path, "--format", "table", "info"])
                expectSuccess(table)
                #expect(table.lines.contains { $0.hasPrefix("wal_frames") && $0.hasSuffix(" \(frames)") }, "\(table)")
            }
        }
    }

    @Test func checkpointPrintsTheFramesAndInfoSeesThem() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withWrittenStore(path) { _ in
                let frames = try #require(try info(path)["wal_frames"] as? Int)
                let result = try cli(["--db", path, "--format", "json", "checkpoint"])
                expectSuccess(result)
                let object = try jsonObject(result.stdout)
                #expect(object["mode"] as? String == "passive", "\(result)")
                #expect(object["wal_frames"] as? Int == frames && object["checkpointed_frames"] as? Int == frames, "\(result)")
                #expect(keysAppearInOrder(result.stdout, ["mode", "wal_frames", "checkpointed_frames", "wal_bytes"]), "\(result)")
                let after = try info(path)
                #expect(after["wal_frames"] as? Int == frames && after["wal_checkpointed_frames"] as? Int == frames, "\(after)")
            }
        }
    }

    @Test func truncateLeavesAnEmptyWALFile() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withWrittenStore(path) { store in
                #expect((walSize(path) ?? 0) > 0)
                let result = try cli(["--db", path, "checkpoint", "--mode", "truncate", "--format", "table"])
                expectSuccess(result)
                #expect(result.lines.first == "mode                 truncate", "\(result)")
                #expect(result.lines.contains("wal_frames           0") && result.lines.contains("checkpointed_frames  0"), "\(result)")
                #expect(walSize(path) == 0)
                // The holder's store keeps working on the emptied WAL.
                try store.repository(NodeVO.self).insert(NodeVO(name: "after", x: 0, y: 0))
                #expect(try store.repository(NodeVO.self).count() == 4)
            }
        }
    }

    @Test func aReaderOfAnOlderSnapshotMakesTruncateBusy() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withWrittenStore(path) { store in
                try store.read { tx in
                    _ = try tx.count(RecordQuery<NodeVO>())  // holds this snapshot
                    try store.repository(NodeVO.self).insert(NodeVO(name: "newer", x: 0, y: 0))
                    let passive = try cli(["--db", path, "--format", "json", "checkpoint"])
                    expectSuccess(passive)
                    let object = try jsonObject(passive.stdout)
                    let walFrames = try #require(object["wal_frames"] as? Int)
                    #expect((object["checkpointed_frames"] as? Int ?? .max) < walFrames, "\(passive)")
                    let truncate = try cli(["--db", path, "--busy-timeout", "200ms", "checkpoint", "--mode", "truncate"])
                    expectFailure(truncate, exit: 5, code: "busy", "could not finish within the busy timeout")
                }
            }
        }
    }

    @Test(arguments: [["--mode", "sometimes"], ["--mode"], ["--mode", "PASSIVE"], ["--frames", "3"]])
    func badArgumentsAreUsageErrorsThatChangeNothing(arguments: [String]) throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withWrittenStore(path) { _ in
                let before = try info(path)
                let result = try cli(["--db", path, "checkpoint"] + arguments)
                let error = expectFailure(result, exit: 2, code: "usage")
                #expect(error?.message.contains(arguments[0]) == true, "the error names the bad argument: \(result)")
                #expect(result.stderrLines.count == 1, "one error line: \(result)")
                #expect(result.stdout.isEmpty)
                let after = try info(path)
                #expect(after["wal_checkpointed_frames"] as? Int == before["wal_checkpointed_frames"] as? Int, "nothing was checkpointed")
            }
        }
    }

    @Test func checkpointWithoutAStoreIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let result = try cli(["--db", storePath(in: directory, "missing.sqlite"), "checkpoint"])
            expectFailure(result, exit: 3, code: "not_found", "missing.sqlite")
            #expect(!FileManager.default.fileExists(atPath: storePath(in: directory, "missing.sqlite")))
        }
    }
}
