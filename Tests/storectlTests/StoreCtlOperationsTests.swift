import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// storectl's operational commands: `watch`, `listeners`, `check`, `backup`, the busy timeout, `demo`
/// (STORECTL.md C.1, C.3, C.4). Several start real processes side by side.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlOperationsTests {
    // MARK: - watch

    @Test func watchSinceZeroReplaysTheLog() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withStore(path) { store in
                let nodes = store.repository(NodeVO.self)
                var first = try nodes.insert(NodeVO(name: "A", x: 0, y: 0))
                _ = try nodes.insert(NodeVO(name: "B", x: 1, y: 1))
                first.x = 42
                try nodes.update(first)
            }
            let result = try cli(["--db", path, "watch", "--since", "0", "--count", "3", "--timeout", "20s"], timeout: 60)
            expectSuccess(result)
            let events = try jsonLines(result)
            #expect(events.count == 3, "\(result)")
            #expect(events.map { $0["seq"] as? Int } == [1, 2, 3])
            #expect(events.map { $0["table"] as? String } == ["nodes", "nodes", "nodes"])
            #expect(events.map { $0["op"] as? String } == ["insert", "insert", "update"])
            #expect(events.map { $0["id"] as? Int } == [1, 2, 1])
            #expect(events.allSatisfy { ($0["ts"] as? String)?.hasSuffix("Z") == true }, "\(result.stdout)")
            let changes = try #require(events.last?["changes"] as? JSONObject, "\(result.stdout)")
            #expect(number(changes["x"]) == 42, "\(result.stdout)")
            for line in result.lines {
                #expect(keysAppearInOrder(line, ["seq", "ts", "table", "op", "id"]), "\(line)")
            }
        }
    }

    @Test func watchPrintsAForeignWriteAndAMigrationInTheirPlaceInTheLog() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withStore(path) { store in
                _ = try store.repository(NodeVO.self).insert(NodeVO(name: "before", x: 0, y: 0))
                // The store is open (idle) while the shell writes: it logs the foreign write.
                let shell = try runSQLiteShell(path, "INSERT INTO nodes (name, x, y) VALUES ('shell', 1, 1);")
                #expect(shell.status == 0, "\(shell.stdout)")
                let deadline = Date().addingTimeInterval(20)
                while try store.lastSequence() < 2, Date() < deadline { usleep(1_000) }
                #expect(try store.lastSequence() == 2, "the foreign write was not logged within 20 s")
                _ = try store.repository(NodeVO.self).insert(NodeVO(name: "after", x: 0, y: 0))
            }
            let migrations = try writeMigrationFolder(["0001_tags.sql": "CREATE TABLE tags (id INTEGER PRIMARY KEY);"], named: "extra", in: directory)
            let migrated = try run("store-fixture", ["migrate", path, "extra", migrations.path])
            #expect(migrated.status == 0, "\(migrated.stderr)")
            let result = try cli(["--db", path, "watch", "--since", "0", "--timeout", "2s"], timeout: 60)
            expectSuccess(result)
            let events = try jsonLines(result)
            #expect(events.map { $0["seq"] as? Int } == [1, 2, 3, 4], "\(result.stdout)")
            #expect(events.map { ($0["event"] as? String) ?? ($0["op"] as? String) } == ["insert", "external_change", "insert", "schema_changed"])
            #expect(events[3]["origin"] as? String == "migration:extra/0001_tags", "\(result.stdout)")
            #expect(events.allSatisfy { ($0["ts"] as? String)?.hasSuffix("Z") == true }, "\(result.stdout)")
        }
    }

    @Test func watchIsNDJSONWhateverTheFormat() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 0, y: 0)])
            let result = try cli(
                ["--db", path, "--format", "table", "watch", "--since", "0", "--count", "1", "--timeout", "20s"], timeout: 60)
            expectSuccess(result)
            #expect(try jsonLines(result).map { $0["op"] as? String } == ["insert"], "\(result)")
        }
    }

    @Test func watchPrintsWhatAnotherStorectlProcessInserts() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            // From the sequence before the insert, rather than "now": whether the watcher opens the store before
            // or after the insert commits, it prints the same three events (no sleep to order the two).
            let before = try withStore(path) { try $0.lastSequence() }
            let watcher = try RunningProcess(
                "storectl", ["--db", path, "watch", "--since", "\(before)", "--count", "3", "--timeout", "300s"],
                environment: ["NO_COLOR": "1"])
            let insert = try cli(["--db", path, "insert", "nodes", "-"], stdin: nodeLines(3).joined(separator: "\n"))
            expectSuccess(insert)
            // --count 3 ends it after the third event, long before its timeout (it used to wait for that).
            let result = CLIResult(watcher.wait(timeout: 60))
            expectSuccess(result)
            let events = try jsonLines(result)
            #expect(events.count == 3, "\(result)")
            #expect(events.map { $0["op"] as? String } == ["insert", "insert", "insert"])
            #expect(events.map { $0["table"] as? String } == ["nodes", "nodes", "nodes"])
            #expect(events.map { $0["id"] as? Int } == [1, 2, 3])
            #expect(Set(events.compactMap { $0["seq"] as? Int }).count == 1, "one insert command is one commit")
        }
    }

    @Test func watchFiltersByTable() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withStore(path) { store in
                _ = try store.repository(NodeVO.self).insert(NodeVO(name: "A", x: 0, y: 0))
                _ = try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))
                _ = try store.repository(NodeVO.self).insert(NodeVO(name: "B", x: 0, y: 0))
            }
            let result = try cli(["--db", path, "watch", "user_info", "--since", "0", "--timeout", "2s"], timeout: 60)
            expectSuccess(result)
            let events = try jsonLines(result)
            #expect(events.map { $0["table"] as? String } == ["user_info"], "\(result)")
            #expect(events.first?["id"] as? String == "me")
            #expect(events.first?["seq"] as? Int == 2)
        }
    }

    @Test func watchResumesAfterAGivenSequence() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            for index in 0..<4 { try seedNodes(path, [NodeVO(name: "n\(index)", x: 0, y: 0)]) }
            let result = try cli(["--db", path, "watch", "--since", "2", "--count", "2", "--timeout", "20s"], timeout: 60)
            expectSuccess(result)
            #expect(try jsonLines(result).map { $0["seq"] as? Int } == [3, 4], "\(result)")
        }
    }

    @Test func watchEndsQuietlyAfterItsTimeout() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let started = Date()
            let result = try cli(["--db", path, "watch", "--timeout", "1s"], timeout: 60)
            expectSuccess(result)
            #expect(result.stdout.isEmpty, "\(result)")
            #expect(Date().timeIntervalSince(started) < 15, "watch --timeout 1s ran for \(Date().timeIntervalSince(started)) s")
        }
    }

    // MARK: - listeners

    @Test func listenersIsEmptyOnAFreshStore() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let result = try cli(["--db", path, "listeners"])
            expectSuccess(result)
            #expect(result.stdout.isEmpty, "\(result)")
        }
    }

    @Test func listenersShowsDurableListenersWithCursorAndLag() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try withStore(path) { store in
                _ = try store.repository(NodeVO.self).insertAll([NodeVO(name: "A", x: 0, y: 0)])
                _ = try store.repository(NodeVO.self).insert(NodeVO(name: "B", x: 0, y: 0))
                _ = try store.repository(NodeVO.self).insert(NodeVO(name: "C", x: 0, y: 0))
                let token = try store.listenDurably("indexer") { _ in }
                token.cancel()
                try store.resetDurableListener("indexer", to: 1)
            }
            let result = try cli(["--db", path, "listeners"])
            expectSuccess(result)
            let listeners = try jsonLines(result)
            #expect(listeners.count == 1, "\(result)")
            let indexer = try #require(listeners.first)
            #expect(indexer["name"] as? String == "indexer")
            #expect(indexer["cursor"] as? Int == 1)
            #expect(indexer["lag"] as? Int == 2)
            #expect(indexer["updated_at"] is String, "\(result.stdout)")
        }
    }

    // MARK: - check

    @Test func checkPassesOnAHealthyStore() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<100).map { NodeVO(name: "n\($0)", x: Double($0), y: 0) })
            for arguments in [["check"], ["check", "--quick"]] {
                let result = try cli(["--db", path] + arguments)
                expectSuccess(result)
                #expect(result.stdout.contains("ok"), "\(arguments): \(result)")
            }
        }
    }

    @Test func checkFindsADamagedPage() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let layout = try withStore(path) { store -> (root: DatabaseValue?, pageSize: DatabaseValue?) in
                _ = try store.repository(NodeVO.self)
                    .insertAll((0..<2000).map { NodeVO(name: "node number \($0)", x: Double($0), y: Double($0)) })
                return try store.read { tx in
                    (
                        try tx.fetchValue("SELECT rootpage FROM sqlite_master WHERE name = 'nodes'"),
                        try tx.fetchValue("PRAGMA page_size")
                    )
                }
            }
            guard case .integer(let nodesRoot)? = layout.root, case .integer(let pageSize)? = layout.pageSize else {
                Issue.record("no root page or page size: \(layout)")
                return
            }
            // Closing the last connection checkpointed the WAL into the file; leftovers would hide the damage.
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            try #require(nodesRoot > 1 && pageSize > 0, "root page \(nodesRoot), page size \(pageSize)")
            try #require(fileSize > Int(pageSize) * 20, "2000 nodes fill many pages (\(fileSize) bytes)")
            // Garbage over the root page of `nodes` (an interior b-tree page by now; page type 7 does not exist).
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try file.seek(toOffset: UInt64((nodesRoot - 1) * pageSize))
            try file.write(contentsOf: Data((0..<Int(pageSize)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
            try file.close()

            let result = try cli(["--db", path, "check"])
            #expect(result.status == 9, "\(result)")
            #expect(!result.signaled && !result.stderr.contains("Fatal error"), "\(result)")
            #expect(!(result.stdout + result.stderr).isEmpty, "check says what it found")
        }
    }

    // MARK: - backup

    @Test func backupMakesAVerifiedCopy() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, (0..<50).map { NodeVO(name: "n\($0)", x: 0, y: 0) })
            let copy = storePath(in: directory, "copy.sqlite")
            let result = try cli(["--db", path, "backup", copy])
            expectSuccess(result)
            #expect(result.stderr.contains("backed up"), "\(result)")
            #expect(result.stderr.contains("quick_check ok"), "\(result)")
            #expect(try rowCount(copy) == 50)
            expectSuccess(try cli(["--db", copy, "check"]))
        }
    }

    @Test func backupRefusesToOverwriteWithoutForce() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            try seedNodes(path, [NodeVO(name: "A", x: 0, y: 0)])
            let copy = storePath(in: directory, "copy.sqlite")
            let precious = Data("an earlier backup\n".utf8)
            try precious.write(to: URL(fileURLWithPath: copy))
            expectFailure(try cli(["--db", path, "backup", copy]), exit: 2, code: "exists", "--force")
            #expect(FileManager.default.contents(atPath: copy) == precious)
            let forced = try cli(["--db", path, "backup", copy, "--force"])
            expectSuccess(forced)
            #expect(try allNodes(copy).map(\.name) == ["A"])
        }
    }

    @Test func backupOfAMissingStoreIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let missing = storePath(in: directory, "missing.sqlite")
            let copy = storePath(in: directory, "copy.sqlite")
            expectFailure(try cli(["--db", missing, "backup", copy]), exit: 3, code: "not_found")
            #expect(!FileManager.default.fileExists(atPath: missing))
            #expect(!FileManager.default.fileExists(atPath: copy))
        }
    }

    @Test func backupWhileAnotherProcessWritesGivesAConsistentCopy() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let writer = try RunningProcess("store-fixture", ["write", path, "300"])
            try waitUntil("the writer's first commit") { (try? rowCount(path)) ?? 0 > 0 }
            let copy = storePath(in: directory, "copy.sqlite")
            let result = try cli(["--db", path, "backup", copy])
            let written = CLIResult(writer.wait(timeout: 120))
            expectSuccess(written)
            expectSuccess(result)
            #expect(result.stderr.contains("quick_check ok"), "\(result)")
            let store = try SQLiteStore(path: copy)
            defer { store.close() }
            let count = try store.repository(NodeVO.self).count()
            #expect((0...300).contains(count))
            // Every node in the copy came with its commit in the change log: the copy is one snapshot.
            #expect(try store.lastSequence() == Int64(count))
            expectSuccess(try cli(["--db", copy, "check"]))
        }
    }

    // MARK: - busy

    @Test func aWriteLockHeldLongerThanTheBusyTimeoutIsBusy() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            let holder = try WriteLockHolder(store)
            defer {
                holder.release()
                _ = holder.finished()
            }
            let started = Date()
            let result = try cli(["--db", path, "--busy-timeout", "200ms", "insert", "nodes", #"{"name":"n","x":1,"y":2}"#])
            let elapsed = Date().timeIntervalSince(started)
            expectFailure(result, exit: 5, code: "busy")
            #expect(elapsed < 4, "--busy-timeout 200ms took \(elapsed) s (the default is 5 s)")
            #expect(try store.repository(NodeVO.self).count() == 0)
        }
    }

    @Test func afterTheLockIsReleasedTheSameWriteSucceeds() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            let holder = try WriteLockHolder(store)
            defer { holder.release() }  // also when a check below fails
            // Held for 0.5 s, well inside a 10 s busy timeout: storectl waits, then writes.
            let releaser = ThreadJob { () -> Bool in
                // Lets time pass so that storectl most likely meets the lock; it writes either way.
                Thread.sleep(forTimeInterval: 0.5)
                holder.release()
                return true
            }
            let result = try cli(["--db", path, "--busy-timeout", "10s", "insert", "nodes", #"{"name":"n","x":1,"y":2}"#])
            #expect(releaser.wait() == true)
            #expect(holder.finished())
            expectSuccess(result)
            #expect(try store.repository(NodeVO.self).count() == 1)
        }
    }

    // MARK: - demo

    @Test func demoPlaysAScenarioAndPointsAtWatch() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory, "demo.sqlite")
            let result = try cli(["demo", "--db", path])
            expectSuccess(result)
            #expect(!result.stdout.isEmpty)
            #expect(result.stdout.contains("storectl watch"), "\(result)")
            #expect(try rowCount(path) > 0)
        }
    }
}
