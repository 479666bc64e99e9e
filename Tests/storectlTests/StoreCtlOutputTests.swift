import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// `list`, `query` and `get` print rows as they are stepped: the exact bytes of every format and
/// storage class, json arrays of any length, tables wider after their first rows, errors, and memory that does
/// not grow with the number of rows.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlOutputTests {
    /// A store with table `kinds`: one row per storage class and per kind of text that needs care.
    private func withKindsStore(_ body: (String) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withStore(path) { store in
                try store.write { tx in
                    try tx.execute("CREATE TABLE kinds (id INTEGER PRIMARY KEY, v, w)")
                    try tx.execute(
                        """
                        INSERT INTO kinds VALUES
                          (1, NULL, 'a,b'), (2, 9223372036854775807, 'say "hi"'), (3, -9223372036854775808, 'line1' || char(10) || 'line2'),
                          (4, 0.30000000000000004, 'cr' || char(13, 10) || 'lf'),
                          (5, 1e15, 'tab' || char(9) || 'x' || char(1, 127, 8232) || '😀é\\'),
                          (6, 3.0, x'00ff10'), (7, -2.5, CAST(x'41ff42' AS TEXT)), (8, 1e300, ''), (9, 'text', NULL)
                        """)
                }
            }
            try body(path)
        }
    }

    // MARK: - Exact bytes

    @Test func ndjsonWritesEveryStorageClassExactly() throws {
        try withKindsStore { path in
            let result = try cli(["--db", path, "--format", "ndjson", "list", "kinds"])
            expectSuccess(result)
            #expect(result.stdout == Self.kindsNDJSON, "\(result)")
        }
    }

    @Test func jsonIsOneArrayOfTheSameObjects() throws {
        try withKindsStore { path in
            let result = try cli(["--db", path, "--format", "json", "list", "kinds"])
            expectSuccess(result)
            let objects = Self.kindsNDJSON.split(separator: "\n").joined(separator: ",\n")
            #expect(result.stdout == "[" + objects + "]\n", "\(result)")
            #expect(try jsonArray(result.stdout).count == 9)
        }
    }

    @Test func csvQuotesWhatRFC4180Needs() throws {
        try withKindsStore { path in
            let result = try cli(["--db", path, "--format", "csv", "list", "kinds"])
            expectSuccess(result)
            let expected =
                "id,v,w\n1,,\"a,b\"\n2,9223372036854775807,\"say \"\"hi\"\"\"\n3,-9223372036854775808,\"line1\nline2\"\n"
                + "4,0.30000000000000004,\"cr\r\nlf\"\n5,1000000000000000.0,tab\tx\u{1}\u{7F}\u{2028}😀é\\\n6,3.0,AP8Q\n"
                + "7,-2.5,A\u{FFFD}B\n8,1e+300,\n9,text,\n"
            #expect(result.stdout == expected, "\(result)")
        }
    }

    @Test func tableEscapesControlCharactersAndSummarisesBlobs() throws {
        try withKindsStore { path in
            let result = try cli(["--db", path, "--format", "table", "query", "SELECT id, v, w FROM kinds WHERE id IN (1, 3, 5, 6, 7)"])
            expectSuccess(result)
            let expected = """
                ID  V                     W
                1   NULL                  a,b
                3   -9223372036854775808  line1\\u{a}line2
                5   1000000000000000.0    tab\\u{9}x\\u{1}\u{7F}\u{2028}😀é\\
                6   3.0                   <blob 3 bytes>
                7   -2.5                  A\u{FFFD}B

                """
            #expect(result.stdout == expected, "\(result)")
        }
    }

    @Test func getPrintsOneObjectInEachFormat() throws {
        try withKindsStore { path in
            let json = try cli(["--db", path, "--format", "json", "get", "kinds", "6"])
            expectSuccess(json)
            #expect(json.stdout == #"{"id":6,"v":3.0,"w":{"$base64":"AP8Q"}}"# + "\n", "\(json)")
            let ndjson = try cli(["--db", path, "--format", "ndjson", "get", "kinds", "2"])
            #expect(ndjson.stdout == #"{"id":2,"v":9223372036854775807,"w":"say \"hi\""}"# + "\n", "\(ndjson)")
            let csv = try cli(["--db", path, "--format", "csv", "get", "kinds", "1"])
            #expect(csv.stdout == "id,v,w\n1,,\"a,b\"\n", "\(csv)")
            let table = try cli(["--db", path, "--format", "table", "get", "kinds", "7"])
            #expect(table.stdout == "id  7\nv   -2.5\nw   A\u{FFFD}B\n", "\(table)")
        }
    }

    // MARK: - Streaming

    @Test(arguments: [0, 1, 3_000])
    func jsonArrayHoldsZeroOneOrManyRows(rows: Int) throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<rows).map { NodeVO(name: "node \($0)", x: Double($0), y: 0.5) })
            let result = try cli(["--db", path, "--format", "json", "list", "nodes"])
            expectSuccess(result)
            #expect(result.stdout.hasPrefix("[") && result.stdout.hasSuffix("]\n"), "\(result.stdout.prefix(200))")
            #expect(result.stdout.components(separatedBy: "},\n{").count == max(rows, 1), "objects are separated by ,\\n")
            let objects = try jsonArray(result.stdout)
            #expect(objects.map { $0["name"] as? String } == (0..<rows).map { "node \($0)" })
            if rows == 0 { #expect(result.stdout == "[]\n") }
        }
    }

    @Test func aTableTakesItsWidthsFromItsFirstRowsAndPrintsLaterCellsWhole() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let long = String(repeating: "L", count: 300)
            try seedNodes(path, (1...1_005).map { NodeVO(name: $0 == 1_003 ? long : "n\($0 % 10)", x: 1, y: 2) })
            let result = try cli(["--db", path, "--format", "table", "query", "SELECT id, name, x FROM nodes ORDER BY id"])
            expectSuccess(result)
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.count == 1 + 1_005 + 1, "header, rows, final newline")
            #expect(lines[0] == "ID    NAME  X", "widths from the first 1000 rows: \(lines[0])")
            #expect(lines[1] == "1     n1    1.0")
            #expect(lines[1_003] == "1003  \(long)  1.0", "a wider cell after the first rows is whole and widens its line")
            #expect(lines[1_005] == "1005  n5    1.0")
        }
    }

    @Test func queryBindsParametersAndAnEmptyResultKeepsTodaysShape() throws {
        try withKindsStore { path in
            let csv = try cli(["--db", path, "--format", "csv", "query", "SELECT id, w FROM kinds WHERE id < :n ORDER BY id", "--param", "n=3"])
            expectSuccess(csv)
            #expect(csv.stdout == "id,w\n1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n", "\(csv)")
            for (format, expected) in [("json", "[]\n"), ("ndjson", ""), ("csv", "\n")] {
                let empty = try cli(["--db", path, "--format", format, "query", "SELECT * FROM kinds WHERE id > 100"])
                expectSuccess(empty)
                #expect(empty.stdout == expected, "\(format): \(empty)")
            }
            let emptyList = try cli(["--db", path, "--format", "csv", "list", "kinds", "--where", "id > 100"])
            #expect(emptyList.stdout == "id,v,w\n", "list knows its columns without rows: \(emptyList)")
        }
    }

    // MARK: - Errors

    @Test func failuresPrintOneErrorLineAndNoData() throws {
        try withKindsStore { path in
            let write = try cli(["--db", path, "--format", "ndjson", "query", "DELETE FROM kinds"])
            expectFailure(write, exit: 2, code: "usage", "must only read")
            #expect(write.stdout.isEmpty, "\(write)")
            let badSQL = try cli(["--db", path, "query", "SELEKT 1"])
            expectFailure(badSQL, exit: 2, code: "usage", "syntax error")
            #expect(badSQL.stdout.isEmpty, "\(badSQL)")
            let missingParameter = try cli(["--db", path, "query", "SELECT * FROM kinds WHERE id = :id"])
            expectFailure(missingParameter, exit: 2, code: "invalid_input", ":id")
            expectFailure(try cli(["--db", path, "get", "kinds", "99"]), exit: 3, code: "not_found", "kinds/99")
            expectFailure(try cli(["--db", path, "list", "nope"]), exit: 3, code: "not_found", "nope")
            #expect(try rowCount(path, "kinds") == 9, "the store is unchanged")
        }
    }

    @Test func aFullStdoutIsAnErrorNotASilentSuccess() throws {
        try withKindsStore { path in
            let storectl = try storectlURL().path
            for command in ["list kinds", "get kinds 1", "query 'SELECT * FROM kinds'"] {
                let result = try shell("'\(storectl)' --db '\(path)' --format ndjson \(command) > /dev/full")
                expectFailure(result, exit: 1, code: "internal", "cannot write the output", "No space left on device")
            }
        }
    }

    // MARK: - Progress

    /// A long export to a file shows a progress line on the terminal (stderr), after one second; the same export
    /// to the terminal does not, since it would mix with the rows. The file holds exactly the rows, no progress.
    @Test func aLongExportToAFileShowsProgressOnTheTerminal() throws {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "script(1) gives the child a terminal")
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try Self.seedNodesWithSQL(path, rows: 400_000)
            let output = directory.appendingPathComponent("nodes.ndjson")
            // `script` runs the command on a pseudo-terminal: stderr is a TTY there, stdout goes to the file.
            let list = "'\(try storectlURL().path)' --db '\(path)' --format ndjson list nodes"
            let toFile = try runChild(script, ["-qec", "\(list) > '\(output.path)'", "/dev/null"], timeout: 150)
            expectSuccess(toFile)
            #expect(toFile.stdout.contains(" rows  "), "a progress line: \(toFile)")
            let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 400_000)
            #expect(lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") }, "only rows in the file")

            let toTerminal = try runChild(script, ["-qec", "\(list) --limit 200000", "/dev/null"], timeout: 150)
            expectSuccess(toTerminal)
            #expect(!toTerminal.stdout.contains(" rows  "), "no progress line among the rows")
        }
    }

    // MARK: - Memory

    /// Peak RSS of `list --format ndjson` does not grow with the rows: 1M rows within 1.2× (+ 4 MB) of 100k.
    @Test(.timeLimit(.minutes(10)))  // two seeds and two lists of a million rows in a debug build: about a minute
    func listMemoryDoesNotDependOnTheNumberOfRows() throws {
        try withTemporaryDirectory { directory in
            var peaks: [Int] = []
            for rows in [100_000, 1_000_000] {
                let path = try initStore(in: directory, "store-\(rows).sqlite")
                try Self.seedNodesWithSQL(path, rows: rows)
                let run = try peakMemory(of: try storectlURL(), ["--db", path, "--format", "ndjson", "list", "nodes"])
                try #require(run.status == 0, "\(run)")
                try #require(run.peakKilobytes > 10_000, "a measured peak (a Swift process takes more than 10 MB): \(run)")
                peaks.append(run.peakKilobytes)
            }
            #expect(Double(peaks[1]) <= Double(peaks[0]) * 1.2 + 4_096, "peak RSS at 100k and 1M rows: \(peaks) KB")
        }
    }

    /// `rows` nodes in one statement, without the change log (a seed, not what is measured).
    static func seedNodesWithSQL(_ path: String, rows: Int) throws {
        var configuration = inspectionConfiguration
        configuration.tracksChanges = false
        let store = try SQLiteStore(path: path, configuration: configuration)
        defer { store.close() }
        try store.write { tx in
            try tx.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO nodes (name, x, y) SELECT 'node ' || i, i * 0.5, i FROM n
                """)
        }
    }

    /// `list kinds --format ndjson`, line by line.
    static let kindsNDJSON = [
        #"{"id":1,"v":null,"w":"a,b"}"#,
        #"{"id":2,"v":9223372036854775807,"w":"say \"hi\""}"#,
        #"{"id":3,"v":-9223372036854775808,"w":"line1\nline2"}"#,
        #"{"id":4,"v":0.30000000000000004,"w":"cr\r\nlf"}"#,
        #"{"id":5,"v":1000000000000000.0,"w":"tab\tx\u0001\u007f\u2028😀é\\"}"#,
        #"{"id":6,"v":3.0,"w":{"$base64":"AP8Q"}}"#,
        "{\"id\":7,\"v\":-2.5,\"w\":\"A\u{FFFD}B\"}",
        #"{"id":8,"v":1e+300,"w":""}"#,
        #"{"id":9,"v":"text","w":null}"#,
    ].map { $0 + "\n" }.joined()
}
