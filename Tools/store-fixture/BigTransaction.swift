import Foundation
import ObservableStore

/// `big-write`: one transaction of many rows, logged in pieces, for the tests of large commits.
enum BigTransaction {
    /// One transaction inserting `rows` nodes with a single statement (named "node <i>", x = i), its changes
    /// captured in pieces of `pieceBytes`. Prints `inserted MS` once the rows are inserted (milliseconds since the
    /// start), then `committed SEQ MS` and `peak-rss KB` (VmHWM). With `killAfterMilliseconds`, the process kills
    /// itself with SIGKILL that long after the start: a crash at a chosen moment of the write or its commit.
    static func run(path: String, rows: Int, pieceBytes: Int, killAfterMilliseconds: Int?) throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.changeLogPieceSize = pieceBytes
        let store = try SQLiteStore(path: path, configuration: configuration)
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

extension BigTransaction {
    /// A durable listener NAME of `nodes` that, for each piece delivered, records every changed key in table
    /// `consumed_keys` and acknowledges in the same transaction (exactly once), pausing `delayMilliseconds` per
    /// piece; prints `piece SEQ INDEX` for each, and exits once its cursor stands at the last commit of `nodes`.
    static func consumePieces(path: String, name: String, delayMilliseconds: Int) throws {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try store.write { try $0.execute("CREATE TABLE IF NOT EXISTS consumed_keys (id INTEGER NOT NULL)") }
        let token = try store.listenDurably(name, filter: .table("nodes"), startingAt: .beginning) { event in
            guard case .commit(let delivery) = event else { return }
            try store.write { tx in
                for change in delivery.commit.changes { try tx.execute("INSERT INTO consumed_keys (id) VALUES (?)", [change.key[0]]) }
                try delivery.acknowledge(in: tx)
            }
            FileHandle.standardOutput.write(Data("piece \(delivery.commit.sequence) \(delivery.commit.piece.index)\n".utf8))
            usleep(UInt32(delayMilliseconds * 1000))
        }
        while true {
            usleep(50_000)
            let last = try store.read {
                try $0.fetchValue("SELECT max(seq) FROM _store_commits WHERE ',' || tables || ',' LIKE '%,nodes,%'")
            }.flatMap(Int64.fromDatabaseValue) ?? 0
            if let info = try store.durableListeners().first(where: { $0.name == name }), info.cursor >= last { break }
        }
        withExtendedLifetime(token) {}
        print("caught up")
    }
}
