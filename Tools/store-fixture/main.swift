// A helper process for the test suite and for measurements: each subcommand does one store job in its
// own process, so tests can race, kill and observe real processes. Not a user tool.
//
//   store-fixture migrate DB [SET_NAME MIGRATIONS_DIR [write]]
//                                                        open DB (applying migrations), print the applied versions;
//                                                        with `write`, insert node "after-migration" right after opening
//   store-fixture write DB COUNT [INTERVAL_MS]           COUNT commits, each inserting node "<pid>-<i>" with x = wall time
//   store-fixture write-batch DB ROWS NAME_BYTES         one commit inserting ROWS nodes, each name NAME_BYTES long
//   store-fixture consume DB NAME OUT [transactional] [DELAY_MS]
//                                                        durable listener NAME: append each delivered sequence to OUT
//                                                        (transactional: record it in table `consumed` and acknowledge
//                                                        in the same transaction); exits once it is caught up and idle
//   store-fixture crash-writer DB [full] [power-loss]    commit tagged transactions until killed, printing `ack SEQ TAG ROWS`
//                                                        (power-loss: through the PowerLossVFS shim, so that a kill
//                                                        loses every write that was not synced, as a power cut does)
//   store-fixture big-write DB ROWS PIECE_BYTES [KILL_AFTER_MS]
//                                                        one transaction inserting ROWS nodes in one statement, logged in
//                                                        pieces of PIECE_BYTES; prints `inserted MS`, `committed SEQ MS`,
//                                                        `peak-rss KB`; with KILL_AFTER_MS, SIGKILLs itself that long after the start
//   store-fixture consume-pieces DB NAME DELAY_MS          durable listener NAME of nodes: records each changed key in
//                                                        `consumed_keys` and acknowledges in the same transaction, per
//                                                        piece, then sleeps DELAY_MS; exits once caught up
//   store-fixture pg-write URL COUNT [DELAY_MS]          (trait PostgreSQL) COUNT commits on PostgreSQL, each
//                                                        inserting a node
//   store-fixture pg-hot URL COUNT ROWS THREADS          (trait PostgreSQL) THREADS writer threads, COUNT commits each,
//                                                        each adding 1 to `y` of two of the nodes hot0…hot<ROWS-1>
//                                                        (lowest id first), so that writers wait on each other's row
//                                                        locks; a busy write (deadlock, serialization) is run again
//   store-fixture pg-consume URL NAME OUT [DELAY_MS [in-write]]
//                                                        (trait PostgreSQL) durable listener NAME of nodes until
//                                                        killed: each commit's sequence goes into table `consumed`
//                                                        with this pid, acknowledged in the same write; progress
//                                                        lines in OUT (see PostgresFixture.consume)
//   store-fixture measure-capture [ROWS] [REPEATS]       time change capture + change log layouts (build with -c release)
//   store-fixture measure-feed [COMMITS]                 cross-process latency p50/p99 and idle CPU (build with -c release)
//
// Exit codes: 0 ok, 2 usage, 5 busy, 7 schema too new, 8 migration conflict, 1 anything else.
// A failure prints `store-fixture: error[CODE]: DESCRIPTION` on stderr, CODE being the StoreError code.
import Foundation
import ObservableStore

func fail(_ error: any Error) -> Never {
    let code = (error as? StoreError)?.code.rawValue ?? "not_a_store_error"
    FileHandle.standardError.write(Data("store-fixture: error[\(code)]: \(error)\n".utf8))
    let status: Int32 =
        switch (error as? StoreError)?.code {
        case .busy?: 5
        case .schemaTooNew?: 7
        case .migrationConflict?: 8
        default: 1
        }
    exit(status)
}

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: see the comment at the top of Tools/store-fixture/main.swift\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { usage() }
do {
    switch command {
    case "migrate" where arguments.count >= 2:
        var configuration = SQLiteStoreConfiguration()
        configuration.applicationName = "store-fixture \(getpid())"
        if arguments.count >= 4 {
            configuration.migrationSets = [try MigrationSet(name: arguments[2], directory: URL(fileURLWithPath: arguments[3]))]
        }
        let store = try SQLiteStore(path: arguments[1], configuration: configuration)
        if arguments.count >= 5, arguments[4] == "write" {
            try store.repository(NodeVO.self, origin: "fixture-\(getpid())").insert(NodeVO(name: "after-migration", x: 0, y: 0))
        }
        print(try store.appliedMigrations().map { "\($0.set)/\($0.version) by \($0.appliedBy)" }.joined(separator: "\n"))
        store.close()
    case "write" where arguments.count >= 3:
        try Fixture.write(path: arguments[1], count: Int(arguments[2]) ?? 0, intervalMilliseconds: arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0)
    case "write-batch" where arguments.count >= 4:
        try Fixture.writeBatch(path: arguments[1], rows: Int(arguments[2]) ?? 0, nameBytes: Int(arguments[3]) ?? 0)
    case "consume" where arguments.count >= 4:
        try Fixture.consume(
            path: arguments[1], name: arguments[2], output: arguments[3], transactional: arguments.dropFirst(4).contains("transactional"),
            delayMilliseconds: arguments.count > 4 ? Int(arguments.last!) ?? 0 : 0)
    case "crash-writer" where arguments.count >= 2:
        try Fixture.crashWriter(
            path: arguments[1], full: arguments.dropFirst(2).contains("full"), powerLoss: arguments.dropFirst(2).contains("power-loss"))
    case "big-write" where arguments.count >= 4:
        try BigTransaction.run(
            path: arguments[1], rows: Int(arguments[2]) ?? 0, pieceBytes: Int(arguments[3]) ?? 0,
            killAfterMilliseconds: arguments.count > 4 ? Int(arguments[4]) : nil)
    case "consume-pieces" where arguments.count >= 4:
        try BigTransaction.consumePieces(path: arguments[1], name: arguments[2], delayMilliseconds: Int(arguments[3]) ?? 0)
    #if PostgreSQL
    case "pg-write" where arguments.count >= 3:
        try PostgresFixture.write(
            url: arguments[1], count: Int(arguments[2]) ?? 0,
            delayMilliseconds: arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0)
    case "pg-hot" where arguments.count >= 5:
        try PostgresFixture.writeHotRows(
            url: arguments[1], count: Int(arguments[2]) ?? 0, rows: Int(arguments[3]) ?? 0, threads: Int(arguments[4]) ?? 1)
    case "pg-consume" where arguments.count >= 4:
        try PostgresFixture.consume(
            url: arguments[1], name: arguments[2], output: arguments[3],
            delayMilliseconds: arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0,
            delayInWrite: arguments.dropFirst(5).contains("in-write"))
    #endif
    case "measure-capture":
        try CaptureMeasurement.run(
            rows: arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000,
            repeats: arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5)
    case "measure-feed":
        try FeedMeasurement.run(commits: arguments.count > 1 ? Int(arguments[1]) ?? 2_000 : 2_000)
    default:
        usage()
    }
} catch {
    fail(error)
}
