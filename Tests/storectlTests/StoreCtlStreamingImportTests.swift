import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// `storectl insert` and `upsert` stream their input: every format lands complete and exact from
/// inputs many blocks long; a bad record anywhere keeps nothing (or, with `--batch-size`, exactly the batches
/// before it); `--dry-run` counts for real.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlStreamingImportTests {
    /// Records in the large inputs: about 2 MB of NDJSON, several of storectl's 256 KiB reads.
    static let large = 30_000

    // MARK: - Every format, streamed

    /// NDJSON; a JSON array with every 100th element over three lines; CSV with CR LF line ends, every 7th
    /// name holding a quote, a comma and a line break.
    @Test(arguments: ["ndjson", "json", "csv"])
    func aLargeFileLandsCompleteAndExact(format: String) throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let nodes = SampleNode.make(Self.large)
            let file = directory.appendingPathComponent("nodes.\(format)")
            switch format {
            case "csv":
                try writeLines(nodes.map(\.csv), to: file, separator: "\r\n", header: "id,name,x,y")
            case "json":
                let elements = nodes.enumerated().map { index, node in
                    index % 100 == 0 ? node.json.replacingOccurrences(of: #","x":"#, with: ",\n  \"x\":\n  ") : node.json
                }
                try writeLines(["["] + elements.enumerated().map { $0 == elements.count - 1 ? $1 : $1 + "," } + ["]"], to: file)
            default:
                try writeLines(nodes.map(\.json), to: file)
            }
            let result = try cli(["--db", path, "insert", "nodes", file.path])
            expectSuccess(result)
            #expect(result.stderr.contains("inserted \(Self.large) records into nodes (1 transaction, "), "\(result)")
            #expect(try SampleNode.stored(path) == nodes.sorted { $0.id < $1.id })
        }
    }

    @Test func stdinIsStreamedAndAPipedStderrGetsNoProgress() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let nodes = SampleNode.make(Self.large)
            let result = try cli(["--db", path, "insert", "nodes", "-"], stdin: nodes.map(\.json).joined(separator: "\n"))
            expectSuccess(result)
            #expect(result.stderrLines.count == 1, "only the summary: \(result)")
            #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"), "no progress line: \(result)")
            #expect(try rowCount(path) == Int64(Self.large))
        }
    }

    @Test func aTerminalGetsAProgressLineAfterOneSecond() throws {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "script(1) gives the child a terminal")
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let file = directory.appendingPathComponent("nodes.ndjson")
            try writeLines(SampleNode.make(200_000).map(\.json), to: file)
            // `script` runs the command on a pseudo-terminal: stderr is a TTY there.
            let command = "'\(try storectlURL().path)' --db '\(path)' insert nodes '\(file.path)'"
            let result = try runChild(script, ["-qec", command, "/dev/null"], timeout: 150)
            expectSuccess(result)
            #expect(result.stdout.contains("records  "), "a progress line: \(result)")
            #expect(result.stdout.contains("%  ETA "), "percent and ETA for a file: \(result)")
            #expect(result.stdout.contains("inserted 200000 records"), "\(result)")
        }
    }

    // MARK: - A bad record in the middle keeps nothing

    /// A bad record on line 4000 of 6000 (past the first 256 KiB read), the error it must give, and its exit code.
    struct BadRecord: CustomTestStringConvertible, Sendable {
        var name: String
        var format: String
        var line: [UInt8]
        var exit: Int32
        var fragments: [String]
        var testDescription: String { name }
    }

    static let badRecords: [BadRecord] = [
        BadRecord(
            name: "NDJSON syntax error", format: "ndjson", line: Array(#"{"id":1,"name":"bad","x":1,,"y":2}"#.utf8), exit: 2,
            fragments: ["line 4000:", "column 28", "found ','"]),
        BadRecord(
            name: "NDJSON wrong type", format: "ndjson", line: Array(#"{"name":"bad","x":"one","y":2}"#.utf8), exit: 2,
            fragments: ["line 4000:", "x is REAL", "a string"]),
        BadRecord(
            name: "NDJSON unknown column", format: "ndjson", line: Array(#"{"name":"bad","x":1,"y":2,"colour":"red"}"#.utf8),
            exit: 2, fragments: ["line 4000:", "unknown column 'colour'"]),
        BadRecord(
            name: "NDJSON invalid UTF-8", format: "ndjson", line: Array(#"{"name":"bad "#.utf8) + [0xFF] + Array(#"","x":1,"y":2}"#.utf8),
            exit: 2, fragments: ["line 4000:", "UTF-8", "column 14"]),
        BadRecord(
            name: "NDJSON duplicate key", format: "ndjson", line: Array(#"{"id":5,"name":"again","x":1,"y":2}"#.utf8), exit: 4,
            fragments: ["UNIQUE", "(input line 4000 id 5)"]),
        BadRecord(
            name: "JSON array syntax error", format: "json", line: Array(#"{"name":"bad","x":1 "y":2},"#.utf8), exit: 2,
            fragments: ["line 4000:", "column 21", "expected ',' or '}'"]),
        BadRecord(
            name: "CSV stray quote", format: "csv", line: Array(#"bad"x,1,2"#.utf8), exit: 2,
            fragments: ["line 4000:", "stray '\"'", "column 4"]),
        BadRecord(
            name: "CSV invalid UTF-8", format: "csv", line: Array("ba".utf8) + [0xC3, 0x28] + Array(",1,2".utf8), exit: 2,
            fragments: ["line 4000:", "UTF-8", "column 3"]),
        BadRecord(name: "CSV wrong type", format: "csv", line: Array("bad,one,2".utf8), exit: 2, fragments: ["line 4000:", "x is REAL"]),
    ]

    @Test(arguments: badRecords)
    func aBadRecordInTheMiddleKeepsNothing(_ bad: BadRecord) throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<5).map { NodeVO(name: "seed \($0)", x: 0, y: 0) })
            let sequenceBefore = try lastLoggedSequence(path)
            let file = directory.appendingPathComponent("input.\(bad.format)")
            try Data(Self.input(around: bad)).write(to: file)
            let result = try cli(["--db", path, "insert", "nodes", file.path])
            let error = expectFailure(result, exit: bad.exit)
            for fragment in bad.fragments + ["nothing was written"] {
                #expect(error?.message.contains(fragment) == true, "message lacks \"\(fragment)\": \(result)")
            }
            #expect(result.stderrLines.count == 1, "one error line: \(result)")
            #expect(try rowCount(path) == 5, "nothing kept")
            #expect(try lastLoggedSequence(path) == sequenceBefore, "no commit in the change log")
        }
    }

    /// 6000 records (header included for CSV) with `bad.line` as line 4000.
    private static func input(around bad: BadRecord) -> [UInt8] {
        var lines: [[UInt8]] = (1...6000).map { line in
            let x = Double(line) / 7
            switch bad.format {
            case "csv": return Array("row \(line),\(x),0".utf8)
            case "json": return Array(#"{"name":"row \#(line)","x":\#(x),"y":0}"#.utf8) + (line < 6000 ? [UInt8(ascii: ",")] : [])
            default: return Array(#"{"name":"row \#(line)","x":\#(x),"y":0}"#.utf8)
            }
        }
        lines[3999] = bad.line
        if bad.format == "csv" { lines[0] = Array("name,x,y".utf8) }
        if bad.format == "json" { lines[0] = [UInt8(ascii: "[")] + lines[0] }
        return lines.flatMap { $0 + [0x0A] } + (bad.format == "json" ? [UInt8(ascii: "]")] : [])
    }

    // MARK: - Batches, dry runs, upserts

    @Test func aFailureAfterSomeBatchesKeepsExactlyThoseAndSaysHowMany() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            var lines = nodeLines(10_000)
            lines[4320] = #"{"name":"bad","x":"one","y":0}"#  // line 4321, in the fifth batch of 1000
            let result = try cli(
                ["--db", path, "insert", "nodes", "-", "--batch-size", "1000"], stdin: lines.joined(separator: "\n"))
            expectFailure(result, exit: 2, code: "invalid_input", "line 4321", "4000 records were committed", "batches of 1000")
            #expect(try rowCount(path) == 4000)
            let names = try withStore(path) { store in
                try store.read { try $0.fetchRows("SELECT name FROM nodes ORDER BY id").compactMap { $0.value("name", as: String.self) } }
            }
            #expect(names == (0..<4000).map { "n\($0)" }, "exactly the first four batches")
        }
    }

    @Test func aDryRunCountsEveryRecordAndKeepsNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let sequenceBefore = try lastLoggedSequence(path)
            for batch in [[], ["--batch-size", "700"]] {
                let result = try cli(
                    ["--db", path, "insert", "nodes", "-", "--dry-run"] + batch, stdin: nodeLines(5000).joined(separator: "\n"))
                expectSuccess(result)
                #expect(result.stderr.hasPrefix("dry run: would insert 5000 records into nodes (rolled back)"), "\(result)")
            }
            #expect(try rowCount(path) == 0)
            #expect(try lastLoggedSequence(path) == sequenceBefore)
        }
    }

    @Test func aStreamedUpsertUpdatesExistingRowsAndInsertsTheRest() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let first = (1...2000).map { #"{"id":\#($0),"name":"old \#($0)","x":\#($0),"y":0}"# }
            expectSuccess(try cli(["--db", path, "insert", "nodes", "-"], stdin: first.joined(separator: "\n")))
            // Keys 1001…4000, the key last in some records: key order does not matter.
            let second = (1001...4000).map {
                $0 % 2 == 0 ? #"{"id":\#($0),"name":"new \#($0)","x":\#($0),"y":1}"# : #"{"name":"new \#($0)","x":\#($0),"y":1,"id":\#($0)}"#
            }
            let dryRun = try cli(["--db", path, "upsert", "nodes", "-", "--dry-run"], stdin: second.joined(separator: "\n"))
            #expect(dryRun.stderr.contains("dry run: would insert 2000 and update 1000 records in nodes (rolled back)"), "\(dryRun)")
            let result = try cli(["--db", path, "upsert", "nodes", "-"], stdin: second.joined(separator: "\n"))
            expectSuccess(result)
            #expect(result.stderr.contains("inserted 2000 and updated 1000 records in nodes (1 transaction, "), "\(result)")
            #expect(try rowCount(path) == 4000)
            let names = try withStore(path) { store in
                try store.read { tx in
                    [1, 1000, 1001, 1500, 4000].map { id in
                        (try? tx.fetchValue("SELECT name FROM nodes WHERE id = ?", [id])).flatMap(String.fromDatabaseValue)
                    }
                }
            }
            #expect(names == ["old 1", "old 1000", "new 1001", "new 1500", "new 4000"])
        }
    }
}
