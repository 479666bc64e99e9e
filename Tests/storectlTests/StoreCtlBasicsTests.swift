import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// storectl's global behaviour and its read commands: finding the store, errors, formats, `info`,
/// `tables`, `schema`, `list`, `get`, `query` (STORECTL.md C.1–C.3).
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlBasicsTests {
    // MARK: - Finding and creating the store

    @Test func initCreatesAStoreAndSaysSo() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            let result = try cli(["init", "--db", path])
            expectSuccess(result)
            let latest = fourDigits(MigrationSet.store.latestVersion)
            #expect(result.stderr.contains("created \(path) (application_id 0x53544f52, schema \(latest), WAL)"), "\(result)")
            #expect(result.stdout.isEmpty, "messages belong on stderr: \(result)")
            try withStore(path) { store throws in
                #expect(try store.read { try $0.fetchValue("PRAGMA application_id") } == .integer(Int64(SQLiteStore.applicationID)))
                #expect(try store.read { try $0.fetchValue("PRAGMA journal_mode") } == .text("wal"))
                #expect(try store.schemaVersion() == MigrationSet.store.latestVersion)
                #expect(try store.appliedMigrations().map(\.version) == Array(1...MigrationSet.store.latestVersion))
            }
        }
    }

    @Test func initOnAnExistingStoreSucceedsAndKeepsItsRecords() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "kept", x: 1, y: 2)])
            let again = try cli(["init", "--db", path])
            expectSuccess(again)
            #expect(again.stderr.contains("already exists"), "\(again)")
            #expect(try allNodes(path).map(\.name) == ["kept"])
        }
    }

    @Test func everyOtherCommandRefusesAMissingFileAndCreatesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory, "typo.sqlite")
            let commands: [[String]] = [
                ["info"], ["tables"], ["list", "nodes"], ["get", "nodes", "1"], ["schema", "nodes"],
                ["insert", "nodes", #"{"name":"n","x":1,"y":2}"#], ["query", "SELECT 1"], ["check"], ["migrate", "up"],
            ]
            for command in commands {
                let result = try cli(["--db", path] + command)
                expectFailure(result, exit: 3, code: "not_found", "no store at")
                #expect(!FileManager.default.fileExists(atPath: path), "`\(command.joined(separator: " "))` created the file")
            }
        }
    }

    @Test func aTextFileIsNotAStoreAndIsLeftAlone() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory, "notes.txt")
            let content = Data(String(repeating: "not a database\n", count: 300).utf8)
            try content.write(to: URL(fileURLWithPath: path))
            for command in [["list", "nodes"], ["info"], ["insert", "nodes", #"{"name":"n","x":1,"y":2}"#]] {
                expectFailure(try cli(["--db", path] + command), exit: 3, code: "not_a_store")
            }
            #expect(FileManager.default.contents(atPath: path) == content)
        }
    }

    @Test func sqliteFilesThatAreNotStoresAreRefusedAndNotConverted() throws {
        try withTemporaryDirectory { directory in
            // Another application's database, a plain database without the history table, an empty file.
            let other = storePath(in: directory, "other.sqlite")
            try withStore(other) { try $0.write { try $0.execute("PRAGMA application_id = 42; CREATE TABLE theirs (x)") } }
            let plain = storePath(in: directory, "plain.sqlite")
            try withStore(plain) { try $0.write { try $0.execute("CREATE TABLE theirs (x)") } }
            let empty = storePath(in: directory, "empty.sqlite")
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            for path in [other, plain, empty] {
                expectFailure(try cli(["--db", path, "list", "nodes"]), exit: 3, code: "not_a_store")
                expectFailure(
                    try cli(["--db", path, "insert", "nodes", #"{"name":"n","x":1,"y":2}"#]), exit: 3, code: "not_a_store")
                let tables = try withStore(path) { store in
                    try store.read { try $0.fetchRows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
                        .compactMap { $0.value("name", as: String.self) }
                }
                #expect(
                    !tables.contains("_store_migrations") && !tables.contains("nodes"),
                    "\(path) was turned into a store: \(tables)")
            }
        }
    }

    @Test func theStoreComesFromSTORECTL_DBWithoutDb() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory, "from-env.sqlite")
            try seedNodes(path, [NodeVO(name: "A", x: 0, y: 0)])
            let result = try cli(["list", "nodes"], environment: ["STORECTL_DB": path], directory: directory)
            expectSuccess(result)
            #expect(try jsonLines(result).map { $0["name"] as? String } == ["A"])
        }
    }

    @Test func dbWinsOverSTORECTL_DB() throws {
        try withTemporaryDirectory { directory in
            let wanted = try initStore(in: directory, "wanted.sqlite")
            let other = try initStore(in: directory, "other.sqlite")
            try seedNodes(wanted, [NodeVO(name: "wanted", x: 0, y: 0)])
            let result = try cli(["--db", wanted, "list", "nodes"], environment: ["STORECTL_DB": other])
            expectSuccess(result)
            #expect(try jsonLines(result).map { $0["name"] as? String } == ["wanted"])
        }
    }

    @Test func withoutDbOrSTORECTL_DBTheStoreIsStoreSqliteInTheWorkingDirectory() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory, "store.sqlite")
            try seedNodes(path, [NodeVO(name: "here", x: 0, y: 0)])
            let result = try cli(["list", "nodes"], directory: directory)
            expectSuccess(result)
            #expect(try jsonLines(result).map { $0["name"] as? String } == ["here"])
        }
    }

    @Test func withNoStoreAnywhereADataCommandFailsAndCreatesNothing() throws {
        try withTemporaryDirectory { directory in
            let result = try cli(["list", "nodes"], directory: directory)
            // STORECTL.md: "no store specified; pass --db or set STORECTL_DB" (2); a missing ./store.sqlite is also
            // a missing store (3). Either way nothing may be created.
            #expect([2, 3].contains(result.status), "\(result)")
            #expect(parseError(result.stderr) != nil, "\(result)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    // MARK: - Global options, errors, help

    @Test func versionPrintsTheToolVersion() throws {
        try withTemporaryDirectory { directory in
            let result = try cli(["--version"], directory: directory)
            expectSuccess(result)
            #expect(result.stdout.contains("storectl \(SQLiteStore.libraryVersion)"), "\(result)")
            #expect(result.stdout.contains("storectl 0.1.0"), "\(result)")
        }
    }

    @Test func unknownOrMalformedFlagsAreUsageErrors() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let invocations: [[String]] = [
                ["--db", path, "list", "nodes", "--frobnicate"],
                ["--frobnicate", "--db", path, "tables"],
                ["--db", path, "--format", "xml", "tables"],
                ["--db", path, "list", "nodes", "--limit", "many"],
                ["--db", path, "--busy-timeout", "soon", "tables"],
                ["--db", path, "frobnicate"],
            ]
            for arguments in invocations {
                let result = try cli(arguments)
                #expect(result.status == 2, "\(arguments): \(result)")
                #expect(!result.signaled && !result.stderr.contains("Fatal error"), "\(result)")
                #expect(!result.stderr.isEmpty, "\(arguments): a usage error says what is wrong")
            }
        }
    }

    @Test func globalOptionsMayComeAfterTheCommand() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 1, y: 2)])
            let result = try cli(["list", "nodes", "--db", path, "--format", "csv", "--no-color"])
            expectSuccess(result)
            #expect(result.lines.first?.hasPrefix("id,name,x,y") == true, "\(result)")
            #expect(result.lines.count == 2, "\(result)")
        }
    }

    @Test func aMissingRecordIsOneTextErrorLine() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "--format", "table", "get", "nodes", "999"])
            #expect(result.status == 3, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            #expect(result.stderrLines == ["storectl: error[not_found]: record nodes/999 not found"], "\(result)")
        }
    }

    @Test func withAJSONFormatTheErrorIsAJSONObject() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            for format in ["json", "ndjson"] {
                let result = try cli(["--db", path, "--format", format, "get", "nodes", "999"])
                #expect(result.status == 3, "\(result)")
                #expect(result.stderrLines.count == 1, "\(result)")
                let line = try #require(result.stderrLines.first)
                let error = try #require(try jsonObject(line)["error"] as? JSONObject, "\(line)")
                #expect(error["code"] as? String == "not_found")
                #expect(error["exit"] as? Int == 3)
                #expect(error["message"] as? String == "record nodes/999 not found")
            }
        }
    }

    @Test func completionPrintsAShellScript() throws {
        try withTemporaryDirectory { directory in
            let result = try cli(["completion", "bash"], directory: directory)
            expectSuccess(result)
            #expect(!result.stdout.isEmpty)
            #expect(result.stdout.contains("storectl"), "\(result.stdout.prefix(500))")
        }
    }

    @Test func theExitCodesAreListed() throws {
        try withTemporaryDirectory { directory in
            for arguments in [["help", "exit-codes"], ["exit-codes"]] {
                let result = try cli(arguments, directory: directory)
                expectSuccess(result)
                #expect(result.stdout.contains("10"), "\(arguments): \(result)")
                #expect(result.stdout.contains("aborted"), "\(arguments): \(result)")
                #expect(result.stdout.contains("busy"), "\(arguments): \(result)")
            }
        }
    }

    /// The overview is wrapped once, by argument-parser, to the terminal's width: on a wide terminal each paragraph is
    /// one line (wrapped in the source as well, it used to break mid-sentence, inside `--traits default,PostgreSQL`).
    @Test func theOverviewWrapsOnlyAtTheTerminalsWidth() throws {
        try withTemporaryDirectory { directory in
            let wide = try cli(["--help"], environment: ["COLUMNS": "400"], directory: directory)
            expectSuccess(wide)
            let lines = wide.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("--db postgres://") && $0.hasSuffix("the server checkpoints).") }, "\(wide.stdout.prefix(800))")
            let narrow = try cli(["--help"], environment: ["COLUMNS": "80"], directory: directory)
            let overview = narrow.stdout.components(separatedBy: "USAGE:")[0].split(separator: "\n")
            #expect(overview.allSatisfy { $0.count <= 80 }, "\(narrow.stdout.prefix(800))")
            #expect(narrow.stdout.contains("`--traits default,PostgreSQL`"), "the option stays whole: \(narrow.stdout.prefix(800))")
        }
    }

    // MARK: - info, tables, schema

    @Test func infoDescribesTheStore() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            for index in 0..<3 { try seedNodes(path, [NodeVO(name: "n\(index)", x: 0, y: 0)]) }  // three commits
            let result = try cli(["--db", path, "info"])
            expectSuccess(result)
            #expect(result.lines.count == 1, "\(result)")
            let info = try jsonObject(try #require(result.lines.first))
            for key in ["store", "schema", "known_schema", "state", "tables", "records", "last_change_seq"] {
                #expect(info[key] != nil, "info lacks \(key): \(result.stdout)")
            }
            #expect(info["records"] as? Int == 3, "\(result.stdout)")
            #expect(info["last_change_seq"] as? Int == 3, "\(result.stdout)")
        }
    }

    @Test func infoAsJSONIsOneObject() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "--format", "json", "info"])
            expectSuccess(result)
            let info = try jsonObject(result.stdout)
            #expect(info["schema"] != nil && info["known_schema"] != nil, "\(result.stdout)")
        }
    }

    @Test func tablesListsTheUserTablesWithTheirCounts() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 0, y: 0), NodeVO(name: "B", x: 0, y: 0)])
            try withStore(path) { store in _ = try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada")) }
            let result = try cli(["--db", path, "tables"])
            expectSuccess(result)
            let tables = try jsonLines(result)
            let names = tables.compactMap { $0["name"] as? String }
            #expect(Set(names) == ["nodes", "user_info"], "\(result.stdout)")
            #expect(!names.contains(where: { $0.hasPrefix("_store_") }))
            let counts = Dictionary(
                tables.map { ($0["name"] as? String ?? "", $0["records"] as? Int ?? -1) }, uniquingKeysWith: { a, _ in a })
            #expect(counts == ["nodes": 2, "user_info": 1], "\(result.stdout)")
            #expect(tables.allSatisfy { $0.keys.contains("last_change") }, "\(result.stdout)")
        }
    }

    @Test func formatTableWinsEvenWhenStdoutIsNotATerminal() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "--format", "table", "tables"])
            expectSuccess(result)
            #expect(result.stdout.contains("nodes"), "\(result)")
            #expect(!result.stdout.hasPrefix("{") && !result.stdout.hasPrefix("["), "\(result)")
        }
    }

    @Test func schemaDescribesEachColumnInOrder() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "schema", "nodes"])
            expectSuccess(result)
            let columns = try jsonLines(result)
            #expect(
                columns.map { $0["column"] as? String } == [
                    "id", "name", "x", "y", "color", "width", "height", "created_at", "updated_at",
                ],
                "\(result.stdout)")
            let byName = Dictionary(columns.map { ($0["column"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            #expect(byName["id"]?["type"] as? String == "INTEGER")
            #expect(byName["id"]?["pk"] as? Bool == true)
            #expect(byName["name"]?["type"] as? String == "TEXT")
            #expect(byName["name"]?["not_null"] as? Bool == true)
            #expect(byName["name"]?["pk"] as? Bool == false)
            #expect(byName["x"]?["type"] as? String == "REAL")
            #expect((byName["color"]?["default"] as? String)?.contains("#4A90D9") == true, "\(result.stdout)")
        }
    }

    @Test func schemaSQLPrintsTheCreateStatement() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "schema", "nodes", "--sql"])
            expectSuccess(result)
            #expect(result.stdout.contains("CREATE TABLE nodes"), "\(result)")
            #expect(result.stdout.contains("CHECK (width >= 0)"), "\(result)")
            #expect(result.stdout.contains("STRICT"), "\(result)")
        }
    }

    @Test func schemaOfAnUnknownTableIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectFailure(try cli(["--db", path, "schema", "nope"]), exit: 3, code: "not_found", "table nope not found")
        }
    }

    // MARK: - list

    @Test func listPrintsOneJSONObjectPerRowInColumnOrder() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(
                path, [NodeVO(name: "A", x: 1.5, y: 2), NodeVO(name: "B", x: -3, y: 0.25), NodeVO(name: "C", x: 0, y: 0)])
            let result = try cli(["--db", path, "list", "nodes"])
            expectSuccess(result)
            #expect(result.lines.count == 3, "\(result)")
            let order = ["id", "name", "x", "y", "color", "width", "height", "created_at", "updated_at"]
            for line in result.lines {
                #expect(line.hasPrefix("{\"id\":"), "\(line)")
                #expect(keysAppearInOrder(line, order), "columns out of order: \(line)")
            }
            let rows = try jsonLines(result)
            #expect(rows.map { $0["id"] as? Int } == [1, 2, 3])
            #expect(rows.map { $0["name"] as? String } == ["A", "B", "C"])
            #expect(rows.map { number($0["x"]) } == [1.5, -3, 0])
            #expect(rows.map { number($0["y"]) } == [2, 0.25, 0])
            #expect(rows.first?["color"] as? String == "#4A90D9")
            #expect(rows.allSatisfy { ($0["created_at"] as? String)?.hasSuffix("Z") == true }, "times are RFC 3339 UTC")
        }
    }

    @Test func listFiltersWithNamedParameters() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<6).map { NodeVO(name: $0 % 2 == 0 ? "even" : "odd", x: Double($0), y: 0) })
            let byName = try cli(["--db", path, "list", "nodes", "--where", "name = :n", "--param", "n=odd"])
            expectSuccess(byName)
            #expect(try jsonLines(byName).map { number($0["x"]) } == [1, 3, 5], "\(byName)")
            let twoParams = try cli([
                "--db", path, "list", "nodes", "--where", "x >= :low AND x < :high", "--param", "low=2", "--param", "high=4",
            ])
            expectSuccess(twoParams)
            #expect(try jsonLines(twoParams).map { number($0["x"]) } == [2, 3], "\(twoParams)")
        }
    }

    @Test func listOrdersAndLimits() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let xs: [Double] = [5, 3, 9, 1, 7]
            try seedNodes(path, xs.map { NodeVO(name: "x\(Int($0))", x: $0, y: 0) })
            let descending = try cli(["--db", path, "list", "nodes", "--order", "-x", "--limit", "2"])
            expectSuccess(descending)
            #expect(try jsonLines(descending).map { number($0["x"]) } == [9, 7], "\(descending)")
            let ascending = try cli(["--db", path, "list", "nodes", "--order", "x"])
            expectSuccess(ascending)
            #expect(try jsonLines(ascending).map { number($0["x"]) } == [1, 3, 5, 7, 9], "\(ascending)")
        }
    }

    @Test func listAfterContinuesAfterTheGivenKeyEvenWhenRowsAreAddedBeforeIt() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let xs: [Double] = [5, 3, 9, 1, 7]
            try seedNodes(path, xs.map { NodeVO(name: "x\(Int($0))", x: $0, y: 0) })
            let first = try cli(["--db", path, "list", "nodes", "--order", "-x", "--limit", "2"])
            expectSuccess(first)
            let firstPage = try jsonLines(first)
            #expect(firstPage.map { number($0["x"]) } == [9, 7])
            let lastKey = try #require(firstPage.last?["id"] as? Int)
            // Another writer adds a row that sorts into the first page: a keyset cursor does not shift.
            try seedNodes(path, [NodeVO(name: "x8", x: 8, y: 0)])
            let second = try cli(["--db", path, "list", "nodes", "--order", "-x", "--limit", "2", "--after", String(lastKey)])
            expectSuccess(second)
            #expect(try jsonLines(second).map { number($0["x"]) } == [5, 3], "\(second)")
            // id 2 is the node with x = 3: after it in descending x comes only x = 1.
            let third = try cli(["--db", path, "list", "nodes", "--order", "-x", "--limit", "2", "--after", "2"])
            expectSuccess(third)
            #expect(try jsonLines(third).map { number($0["x"]) } == [1], "\(third)")
        }
    }

    @Test func listAsCSVHasAHeaderAndQuotesFields() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 1.5, y: 2), NodeVO(name: "Smith, \"Ada\"", x: 0, y: 0)])
            let result = try cli(["--db", path, "--format", "csv", "list", "nodes"])
            expectSuccess(result)
            #expect(result.lines.first == "id,name,x,y,color,width,height,created_at,updated_at", "\(result)")
            #expect(result.lines.count == 3, "\(result)")
            #expect(result.lines.dropFirst().first?.hasPrefix("1,A,1.5,") == true, "\(result)")
            #expect(result.lines.last?.hasPrefix("2,\"Smith, \"\"Ada\"\"\",") == true, "\(result)")
        }
    }

    @Test func listAsJSONIsOneArray() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<3).map { NodeVO(name: "n\($0)", x: Double($0), y: 0) })
            let result = try cli(["--db", path, "--format", "json", "list", "nodes"])
            expectSuccess(result)
            let rows = try jsonArray(result.stdout)
            #expect(rows.map { $0["name"] as? String } == ["n0", "n1", "n2"])
            let empty = try cli(["--db", path, "--format", "json", "list", "nodes", "--where", "x > 100"])
            expectSuccess(empty)
            #expect(try jsonArray(empty.stdout).isEmpty, "an empty list is still one document: \(empty)")
        }
    }

    @Test func whereCannotSmuggleInAnotherStatement() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<3).map { NodeVO(name: "n\($0)", x: Double($0), y: 0) })
            for expression in ["1; DROP TABLE nodes", "1; DELETE FROM nodes", "1); DELETE FROM nodes; --"] {
                let result = try cli(["--db", path, "list", "nodes", "--where", expression])
                expectFailure(result, exit: 2)
                #expect(result.stdout.isEmpty, "\(result)")
            }
            #expect(try rowCount(path) == 3)
        }
    }

    @Test func anUnknownColumnInWhereIsAUsageError() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectFailure(try cli(["--db", path, "list", "nodes", "--where", "nope = 1"]), exit: 2, "nope")
        }
    }

    @Test func listOfAnUnknownTableIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectFailure(try cli(["--db", path, "list", "nope"]), exit: 3, code: "not_found", "table nope not found")
        }
    }

    @Test func listStopsQuietlyWhenTheReaderGoesAway() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<5000).map { NodeVO(name: "node \($0)", x: Double($0), y: Double($0) / 2) })
            let storectl = try storectlURL().path
            let result = try shell(
                "\(quotedForShell(storectl)) --db \(quotedForShell(path)) list nodes | head -1", directory: directory)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "a closed pipe is not an error: \(result)")
            #expect(result.lines.count == 1, "\(result)")
            let first = try jsonObject(try #require(result.lines.first))
            #expect(first["id"] as? Int == 1)
        }
    }

    // MARK: - get, query

    @Test func getPrintsOneRecord() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 0, y: 0), NodeVO(name: "B", x: 4.5, y: 6)])
            let result = try cli(["--db", path, "get", "nodes", "2"])
            expectSuccess(result)
            #expect(result.lines.count == 1, "\(result)")
            let node = try jsonObject(result.stdout)
            #expect(node["id"] as? Int == 2)
            #expect(node["name"] as? String == "B")
            #expect(number(node["x"]) == 4.5)
        }
    }

    @Test func getFindsATextKey() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withStore(path) { store in
                _ = try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada", hairColor: "brown"))
            }
            let result = try cli(["--db", path, "--format", "json", "get", "user_info", "me"])
            expectSuccess(result)
            let user = try jsonObject(result.stdout)
            #expect(user["id"] as? String == "me")
            #expect(user["name"] as? String == "Ada")
            #expect(user["hair_color"] as? String == "brown")
            expectFailure(
                try cli(["--db", path, "get", "user_info", "you"]), exit: 3, code: "not_found", "record user_info/you not found")
        }
    }

    @Test func queryRunsAReadOnlySelect() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "B", x: 2, y: 0), NodeVO(name: "A", x: 1, y: 0)])
            let result = try cli(["--db", path, "query", "SELECT name, x * 2 AS double_x FROM nodes ORDER BY name"])
            expectSuccess(result)
            let rows = try jsonLines(result)
            #expect(rows.map { $0["name"] as? String } == ["A", "B"])
            #expect(rows.map { number($0["double_x"]) } == [2, 4])
            #expect(result.lines.first.map { keysAppearInOrder($0, ["name", "double_x"]) } == true)
        }
    }

    @Test func queryPrintsBlobsAsBase64() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "query", "SELECT x'00ff10' AS bytes, NULL AS empty"])
            expectSuccess(result)
            let row = try jsonObject(try #require(result.lines.first))
            #expect((row["bytes"] as? JSONObject)?["$base64"] as? String == "AP8Q", "\(result.stdout)")
            #expect(row["empty"] is NSNull, "\(result.stdout)")
        }
    }

    @Test func queryRefusesWritesAndChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 1, y: 0)])
            let writes = [
                "DELETE FROM nodes", "UPDATE nodes SET name = 'changed'", "DROP TABLE nodes",
                "INSERT INTO nodes (name, x, y) VALUES ('new', 0, 0)", "SELECT 1; DELETE FROM nodes",
            ]
            for sql in writes {
                expectFailure(try cli(["--db", path, "query", sql]), exit: 2)
            }
            #expect(try allNodes(path).map(\.name) == ["A"])
        }
    }
}

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct StoreCtlDurationTests {
    @Test func hugeOrNegativeDurationsAreUsageErrorsNotCrashes() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            for value in ["1e20s", "-1s", "infs", "5x"] {
                let result = try cli(["--db", path, "--busy-timeout", value, "info"])
                #expect(result.status == 2, "\(value): \(result)")
            }
        }
    }
}
