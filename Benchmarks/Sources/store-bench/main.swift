// store-bench: the same workloads on raw SQLite, GRDB and ObservableStore, each case in its own process
// and temporary directory, several repetitions, then a table of medians and ratios to raw.
//
//   swift run -c release --package-path Benchmarks store-bench [--repeat N] [--only CASE,...] [--markdown FILE]
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

func runWorker(_ workload: Workload, _ contender: String) throws -> Measurement {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    switch contender {
    case "raw": return try RawContender(directory: directory).run(workload)
    case "grdb": return try GRDBContender(directory: directory).run(workload)
    case "store": return try StoreContender(directory: directory, workload: workload).run(workload)
    default: throw WrongResult("unknown contender \(contender)")
    }
}

if arguments.first == "worker", arguments.count == 3, let workload = Workload(rawValue: arguments[1]) {
    do {
        let measurement = try runWorker(workload, arguments[2])
        print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("store-bench: \(arguments[1]) \(arguments[2]): \(error)\n".utf8))
        exit(1)
    }
}
if arguments.first == "cross-writer", arguments.count == 3 {
    do {
        try StoreContender.crossWriter(path: arguments[1], commits: Int(arguments[2]) ?? 0)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("store-bench: cross-writer: \(error)\n".utf8))
        exit(1)
    }
}

try Orchestrator(arguments: arguments).run()
