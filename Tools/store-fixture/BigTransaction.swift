import Foundation
import ObservableStore

/// `big-write`: one transaction of many rows, logged in pieces, for the tests of large commits.
enum BigTransaction {
    /// One transaction inserting `rows` nodes with a single statement (named "node <i>", x = i), its changes
    /// captured in pieces of `pieceBytes`. Prints `inserted MS` once the rows are inserted (milliseconds since the
    /// start), then `committed SEQ MS` and `peak-rss KB` (VmHWM). With `killAfterMilliseconds`, the process kills
    /// itself with SIGKILL that long after the start: a crash at a chosen moment of the write or its commit.
    static func run(path: String, rows: Int, pieceBytes: Int, killAfterMilliseconds: Int?) throws {
        var configuration = StoreConfiguration()
        configuration.changeLogPieceSize = pieceBytes
        let store = try Store(path: path, configuration: configuration)
        defer { store.close() }
        let start = Date()
        func elapsed() -> Int { Int(Date().timeIntervalSince(start) * 1000) }
        if let killAfterMilliseconds {
            Thread.detachNewThread {
                usleep(UInt32(killAfterMilliseconds * 1000))
                kill(getpid(), SIGKILL)
            }
        }
        try store.write(origin: "big-write") { tx in
            try tx.execute(
                "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) "
                    + "INSERT INTO nodes (name, x, y) SELECT 'node ' || i, i, 0 FROM c", [rows])
            FileHandle.standardOutput.write(Data("inserted \(elapsed())\n".utf8))
        }
        let sequence = try store.lastSequence()
        FileHandle.standardOutput.write(Data("committed \(sequence) \(elapsed())\npeak-rss \(peakResidentKilobytes())\n".utf8))
    }

    /// This process's peak resident set size in KiB (`VmHWM` of /proc/self/status; 0 where there is none).
    static func peakResidentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
