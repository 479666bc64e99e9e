#if PostgreSQL
import Foundation
import ObservableStorePostgres

/// The jobs the PostgreSQL tests run in child processes: writers and durable consumers that can be killed.
enum PostgresFixture {
    /// `count` commits, each inserting node "w<i>", pausing `delayMilliseconds` after each.
    static func write(url: String, count: Int, delayMilliseconds: Int) throws {
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let nodes = store.repository(NodeVO.self, origin: "pg-write-\(getpid())")
        for index in 0..<count {
            try nodes.insert(NodeVO(name: "w\(index)", x: Double(index), y: 0))
            if delayMilliseconds > 0 { usleep(UInt32(delayMilliseconds * 1000)) }
        }
    }

    /// Durable listener `name` of `nodes`, until killed: for each commit it appends `deliver SEQ` to `output`, waits
    /// `delayMilliseconds`, then in one write inserts `(SEQ, pid)` into table `consumed` (made by the caller) and
    /// acknowledges (exactly-once effects), appending `inserted SEQ` inside that write and `acked SEQ` after its
    /// commit. With `delayInWrite`, the wait is inside the write, between `inserted` and the commit. Appends
    /// `listening` once registered (standing by while another process holds the name).
    static func consume(url: String, name: String, output: String, delayMilliseconds: Int, delayInWrite: Bool) throws {
        let store = try PostgresStore(url: url)
        defer { store.close() }
        if !FileManager.default.fileExists(atPath: output) {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        try file.seekToEnd()
        @Sendable func say(_ line: String) throws {
            try file.write(contentsOf: Data("\(line)\n".utf8))
            try file.synchronize()
        }
        let pid = Int64(getpid())
        let token = try store.listenDurably(name, filter: .table("nodes"), startingAt: .beginning) { event in
            guard case .commit(let delivery) = event else { return }
            let sequence = delivery.commit.sequence
            try say("deliver \(sequence)")
            if !delayInWrite { usleep(UInt32(delayMilliseconds * 1000)) }
            try store.write { tx in
                try tx.execute("INSERT INTO consumed (seq, pid) VALUES ($1, $2)", [sequence, pid])
                try delivery.acknowledge(in: tx)
                try say("inserted \(sequence)")
                if delayInWrite { usleep(UInt32(delayMilliseconds * 1000)) }
            }
            try say("acked \(sequence)")
        }
        try say("listening")
        withExtendedLifetime(token) {
            while true { sleep(60) }
        }
    }
}
#endif
