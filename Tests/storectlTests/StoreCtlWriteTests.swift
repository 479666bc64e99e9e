import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// storectl's write commands: `insert` (JSON, NDJSON, CSV; all or nothing), `upsert`, `update`, `delete`
/// (STORECTL.md C.3 and "Why these choices").
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlWriteTests {
    // MARK: - insert: input forms

    @Test func insertTakesOneJSONObjectAsTheArgument() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "insert", "nodes", #"{"name":"n","x":1,"y":2}"#])
            expectSuccess(result)
            #expect(result.stderr.contains("inserted 1 record"), "\(result)")
            #expect(result.stderr.contains("into nodes (1 transaction, ") && result.stderr.contains(" ms)"), "\(result)")
            let nodes = try allNodes(path)
            #expect(nodes.map(\.name) == ["n"])
            #expect(nodes.first?.x == 1 && nodes.first?.y == 2)
            #expect(nodes.first?.color == NodeVO.defaultColor)
            #expect(nodes.first?.width == 120)
        }
    }

    @Test func insertTakesAJSONArray() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let array = ##"[{"name":"a","x":1,"y":1},{"name":"b","x":2.5,"y":2,"color":"#FF0000"},{"name":"c","x":3,"y":3}]"##
            let result = try cli(["--db", path, "insert", "nodes", array])
            expectSuccess(result)
            #expect(result.stderr.contains("inserted 3 records into nodes (1 transaction, "), "\(result)")
            let nodes = try allNodes(path)
            #expect(nodes.map(\.name) == ["a", "b", "c"])
            #expect(nodes.map(\.x) == [1, 2.5, 3])
            #expect(nodes.map(\.color) == [NodeVO.defaultColor, "#FF0000", NodeVO.defaultColor])
        }
    }

    @Test func insertReadsNDJSONFromStdin() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "insert", "nodes", "-"], stdin: nodeLines(250).joined(separator: "\n") + "\n")
            expectSuccess(result)
            #expect(result.stderr.contains("inserted 250 records into nodes (1 transaction, "), "\(result)")
            #expect(try rowCount(path) == 250)
            #expect(try allNodes(path).last?.name == "n249")
        }
    }

    @Test func insertReadsAnNDJSONFile() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let file = directory.appendingPathComponent("new.ndjson")
            try Data((nodeLines(4).joined(separator: "\n") + "\n").utf8).write(to: file)
            let result = try cli(["--db", path, "insert", "nodes", file.path])
            expectSuccess(result)
            #expect(result.stderr.contains("inserted 4 records into nodes"), "\(result)")
            #expect(try allNodes(path).map(\.name) == ["n0", "n1", "n2", "n3"])
        }
    }

    @Test func insertReadsACSVFileByItsExtension() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let file = directory.appendingPathComponent("nodes.csv")
            try Data("name,x,y,color\nA,1,2,#111111\n\"Smith, Ada\",3.5,-4,#222222\n".utf8).write(to: file)
            let result = try cli(["--db", path, "insert", "nodes", file.path])
            expectSuccess(result)
            #expect(result.stderr.contains("inserted 2 records into nodes"), "\(result)")
            let nodes = try allNodes(path)
            #expect(nodes.map(\.name) == ["A", "Smith, Ada"])
            #expect(nodes.map(\.x) == [1, 3.5])
            #expect(nodes.map(\.y) == [2, -4])
            #expect(nodes.map(\.color) == ["#111111", "#222222"])
        }
    }

    @Test func insertReadsCSVFromStdinWhenAsked() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(
                ["--db", path, "insert", "nodes", "-", "--input-format", "csv"], stdin: "name,x,y\nA,1,2\nB,3,4\n")
            expectSuccess(result)
            #expect(try allNodes(path).map(\.name) == ["A", "B"])
        }
    }

    @Test func insertTakesTextKeys() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "insert", "user_info", #"{"id":"me","name":"Ada","hair_color":"brown"}"#])
            expectSuccess(result)
            let user = try withStore(path) { try $0.repository(UserInfo.self).fetch("me") }
            #expect(user?.name == "Ada")
            #expect(user?.hairColor == "brown")
        }
    }

    @Test func quietInsertPrintsNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "-q", "insert", "nodes", #"{"name":"n","x":1,"y":2}"#])
            expectSuccess(result)
            #expect(result.stderr.isEmpty && result.stdout.isEmpty, "\(result)")
            #expect(try rowCount(path) == 1)
        }
    }

    // MARK: - insert: bad input writes nothing

    @Test func malformedStdinNamesTheLineAndWritesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "insert", "nodes", "-"], stdin: "{\"name\":\"a\",\"x\":1,\"y\":2}\n{oops\n")
            let error = expectFailure(result, exit: 2, code: "invalid_input")
            #expect(error?.message.hasPrefix("stdin line 2:") == true, "\(result)")
            #expect(error?.message.hasSuffix("nothing was written") == true, "\(result)")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func malformedFileNamesTheFileAsGivenAndTheLine() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let file = directory.appendingPathComponent("bad.ndjson")
            try Data((nodeLines(2) + [#"{"name":"broken","x":1,"y":"#]).joined(separator: "\n").utf8).write(to: file)
            let result = try cli(["--db", path, "insert", "nodes", file.path])
            let error = expectFailure(result, exit: 2, code: "invalid_input")
            #expect(error?.message.hasPrefix("\(file.path) line 3:") == true, "\(result)")
            #expect(error?.message.hasSuffix("nothing was written") == true, "\(result)")
            #expect(try rowCount(path) == 0)
            // A relative path is named as it was given.
            let relative = try cli(["--db", path, "insert", "nodes", "bad.ndjson"], directory: directory)
            let relativeError = expectFailure(relative, exit: 2, code: "invalid_input")
            #expect(relativeError?.message.hasPrefix("bad.ndjson line 3:") == true, "\(relative)")
        }
    }

    @Test func aMissingInputFileIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let missing = directory.appendingPathComponent("missing.ndjson").path
            let result = try cli(["--db", path, "insert", "nodes", missing])
            #expect([2, 3].contains(result.status), "\(result)")
            #expect(parseError(result.stderr) != nil, "\(result)")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func aConstraintViolationNamesTheInputLineAndRollsEverythingBack() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            var lines = nodeLines(20)
            lines[16] = #"{"name":"too narrow","x":1,"y":2,"width":-1}"#  // input line 17 breaks CHECK (width >= 0)
            let result = try cli(["--db", path, "insert", "nodes", "-"], stdin: lines.joined(separator: "\n") + "\n")
            expectFailure(result, exit: 4, code: "constraint", "(input line 17", "nothing was written")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func aDuplicateKeyNamesTheInputLineAndKeepsTheExistingRows() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(id: 5, name: "existing", x: 0, y: 0)])
            let lines = (1...8).map { #"{"id":\#($0 + 1),"name":"new \#($0)","x":0,"y":0}"# }  // input line 4 is id 5
            let result = try cli(["--db", path, "insert", "nodes", "-"], stdin: lines.joined(separator: "\n") + "\n")
            expectFailure(result, exit: 4, code: "constraint", "(input line 4", "nothing was written")
            #expect(try allNodes(path).map(\.name) == ["existing"])
        }
    }

    @Test func aMissingRequiredColumnAtLine251Of500WritesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            var lines = nodeLines(500)
            lines[250] = #"{"x":250,"y":0}"#  // line 251: no name (NOT NULL)
            let result = try cli(["--db", path, "insert", "nodes", "-"], stdin: lines.joined(separator: "\n") + "\n")
            #expect([2, 4].contains(result.status), "\(result)")
            let error = try #require(parseError(result.stderr), "\(result)")
            #expect(error.message.contains("line 251"), "\(error.message)")
            #expect(error.message.contains("nothing was written"), "\(error.message)")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func anUnknownColumnIsAUsageErrorNamingIt() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "insert", "nodes", #"{"name":"n","x":1,"y":2,"colour":"red"}"#])
            expectFailure(result, exit: 2, "colour")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func aValueOfTheWrongTypeNamesTheLineAndTheColumn() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let input = #"{"name":"ok","x":1,"y":2}"# + "\n" + #"{"name":"bad","x":"left","y":2}"# + "\n"
            let result = try cli(["--db", path, "insert", "nodes", "-"], stdin: input)
            let error = expectFailure(result, exit: 2, "line 2")
            let words = error?.message.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }).map(String.init) ?? []
            #expect(words.contains("x"), "the message names column x: \(result)")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func aTableThatDoesNotExistIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectFailure(
                try cli(["--db", path, "insert", "nope", #"{"a":1}"#]), exit: 3, code: "not_found", "table nope not found")
        }
    }

    // MARK: - insert: batches and dry runs

    @Test func batchSizeCommitsWholeBatchesAndSaysHowManyOnFailure() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            var lines = nodeLines(10)
            lines[6] = #"{"name":"bad","x":1,"y":2,"width":-1}"#  // in the second batch of 4
            let result = try cli(
                ["--db", path, "insert", "nodes", "-", "--batch-size", "4"], stdin: lines.joined(separator: "\n") + "\n")
            expectFailure(result, exit: 4, code: "constraint", "records were committed", "line 7")
            #expect(try allNodes(path).map(\.name) == ["n0", "n1", "n2", "n3"])
        }
    }

    @Test func batchSizeInsertsEverythingWhenAllIsWell() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(
                ["--db", path, "insert", "nodes", "-", "--batch-size", "3"], stdin: nodeLines(10).joined(separator: "\n") + "\n")
            expectSuccess(result)
            #expect(result.stderr.contains("inserted 10 records into nodes"), "\(result)")
            #expect(try rowCount(path) == 10)
        }
    }

    @Test func dryRunReportsTheCountAndWritesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(
                ["--db", path, "insert", "nodes", "-", "--dry-run"], stdin: nodeLines(3).joined(separator: "\n"))
            expectSuccess(result)
            #expect(result.stderr.hasPrefix("dry run: would insert 3"), "\(result)")
            #expect(try rowCount(path) == 0)
            #expect(try withStore(path) { try $0.lastSequence() } == 0, "a rolled-back dry run logs no commit")
        }
    }

    @Test func dryRunStillReportsRealConstraintErrors() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            var lines = nodeLines(3)
            lines[1] = #"{"name":"bad","x":1,"y":2,"height":-5}"#
            let result = try cli(["--db", path, "insert", "nodes", "-", "--dry-run"], stdin: lines.joined(separator: "\n"))
            expectFailure(result, exit: 4, code: "constraint", "line 2")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func dryRunIsParsedStrictly() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "insert", "nodes", #"{"name":"n","x":1,"y":2}"#, "--dry-run=false"])
            #expect(result.status == 2, "a flag takes no value: \(result)")
            #expect(try rowCount(path) == 0)
        }
    }

    // MARK: - upsert

    @Test func upsertUpdatesOnAKeyConflictAndInsertsTheRest() throws {
        for command in [["insert", "nodes", "-", "--upsert"], ["upsert", "nodes", "-"]] {
            try withTemporaryDirectory { directory in
                let path = try initStore(in: directory)
                try seedNodes(path, [NodeVO(id: 1, name: "old", x: 0, y: 0), NodeVO(id: 2, name: "untouched", x: 0, y: 0)])
                let input = [
                    #"{"id":1,"name":"new","x":10,"y":20}"#, #"{"id":3,"name":"added","x":0,"y":0}"#,
                ].joined(separator: "\n")
                let result = try cli(["--db", path] + command, stdin: input)
                expectSuccess(result)
                let nodes = try allNodes(path)
                #expect(nodes.map(\.id) == [1, 2, 3], "\(command)")
                #expect(nodes.map(\.name) == ["new", "untouched", "added"], "\(command)")
                #expect(nodes.first?.x == 10, "\(command)")
            }
        }
    }

    @Test func upsertDryRunCountsInsertsAndUpdates() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(id: 1, name: "one", x: 0, y: 0), NodeVO(id: 2, name: "two", x: 0, y: 0)])
            let input = (1...3).map { #"{"id":\#($0),"name":"changed","x":1,"y":1}"# }.joined(separator: "\n")
            let result = try cli(["--db", path, "insert", "nodes", "-", "--upsert", "--dry-run"], stdin: input)
            expectSuccess(result)
            #expect(result.stderr.contains("dry run: would insert 1 and update 2 records in nodes (rolled back)"), "\(result)")
            #expect(try allNodes(path).map(\.name) == ["one", "two"])
        }
    }

    // MARK: - update

    @Test func updateSetsColumnsOfOneRecord() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 1, y: 1), NodeVO(name: "B", x: 2, y: 2)])
            let result = try cli(["--db", path, "update", "nodes", "1", "--set", "name=Renamed", "--set", "x=42.5"])
            expectSuccess(result)
            #expect(result.stderr.contains("updated 1 record"), "\(result)")
            let nodes = try allNodes(path)
            #expect(nodes.map(\.name) == ["Renamed", "B"])
            #expect(nodes.map(\.x) == [42.5, 2])
        }
    }

    @Test func updateOfAMissingRecordIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectFailure(try cli(["--db", path, "update", "nodes", "999", "--set", "name=x"]), exit: 3, code: "not_found")
            #expect(try rowCount(path) == 0)
        }
    }

    @Test func updateThatBreaksAConstraintChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 1, y: 1)])
            expectFailure(try cli(["--db", path, "update", "nodes", "1", "--set", "width=-3"]), exit: 4, code: "constraint")
            #expect(try allNodes(path).first?.width == 120)
        }
    }

    // MARK: - delete

    @Test func deleteRemovesOneRecordByKey() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<3).map { NodeVO(name: "n\($0)", x: 0, y: 0) })
            let result = try cli(["--db", path, "delete", "nodes", "2"])
            expectSuccess(result)
            #expect(result.stderr.contains("deleted 1 record"), "\(result)")
            #expect(try allNodes(path).map(\.id) == [1, 3])
        }
    }

    @Test func deleteWhereWithoutYesIsRefusedWhenStdinIsNotATerminal() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<5).map { NodeVO(name: "n\($0)", x: Double($0), y: 0) })
            let arguments = ["--db", path, "delete", "nodes", "--where", "x >= :t", "--param", "t=2"]
            expectFailure(try cli(arguments), exit: 10, code: "confirmation_required", "without --yes")
            expectFailure(try cli(arguments, stdin: "nodes\n"), exit: 10, code: "confirmation_required", "without --yes")
            #expect(try rowCount(path) == 5)
        }
    }

    @Test func deleteWhereWithYesDeletesTheMatchingRecords() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<5).map { NodeVO(name: "n\($0)", x: Double($0), y: 0) })
            let result = try cli(["--db", path, "delete", "nodes", "--where", "x >= :t", "--param", "t=2", "--yes"])
            expectSuccess(result)
            #expect(result.stderr.contains("deleted 3 records"), "\(result)")
            #expect(try allNodes(path).map(\.name) == ["n0", "n1"])
        }
    }

    @Test func deleteDryRunDeletesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<5).map { NodeVO(name: "n\($0)", x: Double($0), y: 0) })
            let byWhere = try cli(["--db", path, "delete", "nodes", "--where", "x >= :t", "--param", "t=2", "--yes", "--dry-run"])
            expectSuccess(byWhere)
            #expect(byWhere.stderr.contains("3"), "the dry run says how many it would delete: \(byWhere)")
            let byKey = try cli(["--db", path, "delete", "nodes", "1", "--dry-run"])
            expectSuccess(byKey)
            #expect(try rowCount(path) == 5)
        }
    }

    @Test func deleteOfAMissingRecordIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectFailure(try cli(["--db", path, "delete", "nodes", "42"]), exit: 3, code: "not_found")
        }
    }

    @Test func deleteWhereCannotSmuggleInAnotherStatement() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<3).map { NodeVO(name: "n\($0)", x: 0, y: 0) })
            expectFailure(try cli(["--db", path, "delete", "nodes", "--where", "0; DROP TABLE nodes", "--yes"]), exit: 2)
            #expect(try rowCount(path) == 3)
        }
    }

    // MARK: - storectl's writes are ordinary commits

    @Test func storectlWritesReachTheChangeLog() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            expectSuccess(try cli(["--db", path, "insert", "nodes", "-"], stdin: nodeLines(3).joined(separator: "\n")))
            expectSuccess(try cli(["--db", path, "update", "nodes", "2", "--set", "name=renamed"]))
            expectSuccess(try cli(["--db", path, "delete", "nodes", "3"]))
            let commits = try withStore(path) { try $0.commits(after: 0) }
            #expect(commits.count == 3, "one commit per command")
            #expect(commits.map { $0.changes.count } == [3, 1, 1])
            #expect(commits.flatMap { $0.changes.map(\.operation) } == [.insert, .insert, .insert, .update, .delete])
        }
    }
}
