#if PostgreSQL
import Foundation
import ObservableStorePostgres
import Synchronization

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

    /// `threads` writer threads on one store, `count` commits each: every commit adds 1 to `y` of two of the nodes
    /// named hot0…hot<rows-1> (made by the caller), chosen at random and updated lowest id first, so that writers wait
    /// on each other's row locks without deadlocking; a write that still fails `busy` is run again.
    static func writeHotRows(url: String, count: Int, rows: Int, threads: Int) throws {
        var configuration = PostgresStoreConfiguration()
        configuration.maximumConnectionCount = max(threads, 1)
        configuration.tracksChanges = false
        let store = try PostgresStore(url: url, configuration: configuration)
        defer { store.close() }
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: max(threads, 1)) { _ in
            var done = 0
            while done < count, failure.withLock({ $0 == nil }) {
                let picked = Array(Set((0..<4).map { _ in Int.random(in: 0..<max(rows, 1)) }).prefix(2)).sorted()
                do {
                    try store.write(origin: "pg-hot-\(getpid())") { tx in
                        for row in picked { try tx.execute("UPDATE nodes SET y = y + 1 WHERE name = $1", ["hot\(row)"]) }
                    }
                    done += 1
                } catch let error as StoreError where error.code == .busy {
                    continue
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
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
