import Foundation
import ObservableStore
import PowerLossVFS

/// The jobs tests run in child processes.
enum Fixture {
    /// `count` commits, each inserting node "<pid>-<i>" whose x is the wall-clock time of the write.
    static func write(path: String, count: Int, intervalMilliseconds: Int) throws {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let pid = getpid()
        for index in 0..<count {
            try store.repository(NodeVO.self, origin: "fixture-\(pid)")
                .insert(NodeVO(name: "\(pid)-\(index)", x: Date().timeIntervalSince1970, y: Double(index)))
            if intervalMilliseconds > 0 { usleep(UInt32(intervalMilliseconds * 1000)) }
        }
    }

    /// One commit inserting `rows` nodes whose names are `nameBytes` long: a write larger than SQLite's page cache
    /// spills pages to the WAL before COMMIT.
    static func writeBatch(path: String, rows: Int, nameBytes: Int) throws {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let padding = String(repeating: "p", count: max(0, nameBytes - 12))
        _ = try store.repository(NodeVO.self, origin: "fixture-\(getpid())")
            .insertAll((0..<rows).map { NodeVO(name: "\($0) " + padding, x: Double($0), y: 0) })
    }

    /// A durable listener that records each delivered commit's sequence, then exits once it has
    /// acknowledged everything logged and nothing new came for a moment.
    static func consume(path: String, name: String, output: String, transactional: Bool, delayMilliseconds: Int) throws {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        if transactional {
            try store.write { try $0.execute("CREATE TABLE IF NOT EXISTS consumed (seq INTEGER PRIMARY KEY)") }
        }
        if !FileManager.default.fileExists(atPath: output) { _ = FileManager.default.createFile(atPath: output, contents: nil) }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        try file.seekToEnd()
        let token = try store.listenDurably(name, filter: .table("nodes"), startingAt: .beginning) { event in
            guard case .commit(let delivery) = event else { return }
            if delayMilliseconds > 0 { usleep(UInt32(delayMilliseconds * 1000)) }
            if transactional {
                try store.write { tx in
                    try tx.execute("INSERT INTO consumed (seq) VALUES (?)", [delivery.commit.sequence])
                    try delivery.acknowledge(in: tx)
                }
            }
            try file.write(contentsOf: Data("\(delivery.commit.sequence)\n".utf8))
            try file.synchronize()
        }
        // Done when the cursor reached the last commit of `nodes` and stayed there for 300 ms.
        var quietSince = Date()
        while true {
            usleep(50_000)
            let info = try store.durableListeners().first { $0.name == name }
            let lastNodeCommit = try store.read {
                try $0.fetchValue("SELECT max(seq) FROM _store_commits WHERE ',' || tables || ',' LIKE '%,nodes,%'")
            }.flatMap(Int64.fromDatabaseValue) ?? 0
            if let info, info.cursor >= lastNodeCommit {
                if Date().timeIntervalSince(quietSince) > 0.3 { break }
            } else {
                quietSince = Date()
            }
        }
        withExtendedLifetime(token) {}
        print("caught up")
    }
}

extension Fixture {
    /// Commits forever until killed: each transaction inserts 1 to 5 nodes tagged with the transaction's
    /// number, and only after `write` returned prints `ack SEQUENCE TAG ROWS` (flushed): an acknowledged commit.
    static func crashWriter(path: String, full: Bool, powerLoss: Bool) throws {
        if powerLoss {
            let code = powerloss_vfs_register()
            guard code == 0 else { throw StoreError(.internal, "cannot register the power-loss VFS: SQLite error \(code)") }
        }
        var configuration = SQLiteStoreConfiguration()
        configuration.synchronous = full ? .full : .normal
        let store = try SQLiteStore(path: path, configuration: configuration)
        var generator = SystemRandomNumberGenerator()
        if powerLoss {
            // Frequent checkpoints (each one syncs the WAL) make some commits durable under NORMAL too.
            try store.write { try $0.execute("PRAGMA wal_autocheckpoint = \(Int.random(in: 5...50, using: &generator))") }
        }
        var transaction = 0
        while true {
            transaction += 1
            let tag = "\(getpid())-\(transaction)"
            let rows = Int.random(in: 1...5, using: &generator)
            try store.write { tx in
                for row in 0..<rows { try tx.insert(NodeVO(name: "\(tag)/\(row)", x: Double(rows), y: 0)) }
            }
            let sequence = try store.lastSequence()
            FileHandle.standardOutput.write(Data("ack \(sequence) \(tag) \(rows)\n".utf8))
        }
    }
}
