// store-bench-postgres: PostgresStore against raw postgres-nio on a real server, several repetitions in one run,
// then medians and ratios (results in Benchmarks/RESULTS.md).
//
//   swift run -c release --package-path Benchmarks store-bench-postgres [--url URL] [--repeat N] [--only CASE,...]
//       [--scheme VERSION]   (the store opened at that migration of the engine's set: 1 = the first commit scheme)
//
// URL: postgres://user@host:port/database (default $OBSERVABLE_STORE_POSTGRES_URL); each case creates and drops
// its own database on that server. Cases: commits_1, commits_4, commits_8, commits_16 (blocking writes, a thread per
// writer), awaited_8, awaited_16 (awaited writes, a task per writer), latency (one foreign writer),
// latency_16 (sixteen foreign writers), fetch_all, fetch_by_id, observed_query (its "store" column: an observed query
// judged in memory; its "raw" column: the same query read again after every commit; ms per commit until the observer
// caught up; stderr also prints the commits alone). Benchmarks/postgres-commits runs the commit cases
// with pgbench beside them, on a private cluster, on the default disk and with fsync made 1 ms slower.
import BenchSupport
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "writer", arguments.count == 5, let count = Int(arguments[2]), let pause = Int(arguments[3]),
    let connections = Int(arguments[4])
{
    do {
        try runBlocking {
            try await CommitLatency.writer(url: arguments[1], count: count, pause: .milliseconds(pause), connections: connections)
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("store-bench-postgres: writer: \(error)\n".utf8))
        exit(1)
    }
}

do {
    try PostgresBench(arguments: arguments).run()
} catch {
    FileHandle.standardError.write(Data("store-bench-postgres: \(error)\n".utf8))
    exit(1)
}
